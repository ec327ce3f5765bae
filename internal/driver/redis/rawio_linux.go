package redis

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawIO says whether connections use the poller callbacks (WriteRead's
// write from inside the read wait); on Windows they read and write
// through net.Conn.
const rawIO = true

// rawWrite and rawRead are the system calls a raw connection's poller
// callbacks make on its descriptor.
func rawWrite(fd uintptr, p []byte) (int, error) { return syscall.Write(int(fd), p) }

// rawRead is a raw system call: the descriptor is non-blocking, and one
// made the usual way wakes the runtime's monitor thread when it sleeps.
func rawRead(fd uintptr, p []byte) (int, error) {
	n, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
