//go:build unix && !linux

package transport

import "syscall"

// rawIO says whether connections use the poller callbacks (WriteRead's
// write from inside the read wait); on Windows they read and write
// through net.Conn.
const rawIO = true

// rawWrite and rawRead are the system calls a raw connection's poller
// callbacks make on its descriptor.
func rawWrite(fd uintptr, p []byte) (int, error) { return syscall.Write(int(fd), p) }

func rawRead(fd uintptr, p []byte) (int, error) { return syscall.Read(int(fd), p) }
