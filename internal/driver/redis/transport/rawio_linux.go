package transport

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawIO says whether connections use the poller callbacks (WriteRead's
// write from inside the read wait); on Windows they read and write
// through net.Conn.
const rawIO = true

// rawWrite and rawRead are the system calls a raw connection's poller
// callbacks, a group's connections and a detached connection (fdConn)
// make on their descriptors, which are non-blocking. They are raw: a
// system call made the usual way tells the scheduler of each call and
// wakes the runtime's monitor thread when it sleeps. And they are sendto
// and recvfrom rather than write and read, which reach a socket through
// the file layer first.
func rawWrite(fd uintptr, p []byte) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_SENDTO, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func rawRead(fd uintptr, p []byte) (int, error) {
	n, _, errno := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
