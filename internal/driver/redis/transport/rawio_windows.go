//go:build windows

package transport

import "syscall"

// rawIO says whether connections use the poller callbacks (WriteRead's
// write from inside the read wait); on Windows they read and write
// through net.Conn.
const rawIO = false

// rawWrite and rawRead are the system calls a raw connection's poller
// callbacks make on its handle.
func rawWrite(fd uintptr, p []byte) (int, error) { return syscall.Write(syscall.Handle(fd), p) }

func rawRead(fd uintptr, p []byte) (int, error) { return syscall.Read(syscall.Handle(fd), p) }
