package transport

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RxStamps says whether a connection can tell when its data arrived (the
// kernel's receive timestamp, SO_TIMESTAMPNS), which deferred reads need,
// and read without waiting (Conn.EnablePolled).
const RxStamps = true

// stamper reads with recvmsg and keeps the kernel's receive time of the
// last data read. It is set up once per connection; its message header
// and control buffer are reused, so that a read does not allocate.
type stamper struct {
	msg  unix.Msghdr
	iov  unix.Iovec
	ctl  [64]byte
	last int64 // ns since the epoch, 0: none
}

// enableStamps asks the kernel to timestamp what fd receives.
func enableStamps(fd uintptr) error {
	return unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
}

// recv reads into p with recvmsg, noting the timestamp of the data read.
func (s *stamper) recv(fd uintptr, p []byte) (int, error) {
	s.iov.Base = &p[0]
	s.iov.SetLen(len(p))
	s.msg.Iov = &s.iov
	s.msg.SetIovlen(1)
	s.msg.Control = &s.ctl[0]
	s.msg.SetControllen(len(s.ctl))
	// Raw: the descriptor is non-blocking, and a system call made the
	// usual way wakes the runtime's monitor thread when it sleeps.
	n, _, errno := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
	s.iov.Base, s.msg.Iov, s.msg.Control = nil, nil, nil
	if errno != 0 {
		return 0, errno
	}
	s.parse(int(s.msg.Controllen))
	return int(n), nil
}

// parse finds SO_TIMESTAMPNS among the control messages.
func (s *stamper) parse(n int) {
	const hdr = int(unsafe.Sizeof(unix.Cmsghdr{}))
	for off := 0; off+hdr <= n; {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&s.ctl[off]))
		l := int(h.Len)
		if l < hdr || off+l > n {
			return
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS && l >= hdr+int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&s.ctl[off+hdr]))
			s.last = ts.Nano()
		}
		off += (l + 7) &^ 7
	}
}

// arrived returns the receive time of the last data read (zero: unknown).
func (s *stamper) arrived() time.Time {
	if s.last == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.last)
}

// forget clears the last arrival.
func (s *stamper) forget() { s.last = 0 }
