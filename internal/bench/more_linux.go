package bench

import (
	"net"
	"os"
	"syscall"
)

// sendMore writes p, the header block of a request whose body follows
// at once, with MSG_MORE: the kernel keeps it until the body's writev
// and sends both in the same segments, instead of a segment (and, on
// loopback, a wake-up of the server) for the headers alone. ok is false
// where c has no file descriptor (the caller writes p as usual).
func sendMore(c net.Conn, p []byte) (n int, err error, ok bool) {
	sc, isSC := c.(syscall.Conn)
	if !isSC {
		return 0, nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, nil, false
	}
	var serr error
	err = rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, e := syscall.SendmsgN(int(fd), p[n:], nil, nil, syscall.MSG_MORE)
			switch e {
			case nil:
				n += m
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until the socket takes more
			default:
				serr = e
				return true
			}
		}
		return true
	})
	if serr != nil {
		err = serr
	}
	if err != nil {
		err = &net.OpError{Op: "write", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("sendmsg", err)}
	}
	return n, err, true
}
