package main

import (
	"syscall"
	"unsafe"
)

// unread is how many bytes wait in the socket's receive queue (SIOCINQ).
func unread(raw syscall.RawConn) int {
	if raw == nil {
		return 0
	}
	n := 0
	raw.Control(func(fd uintptr) {
		var v int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&v))); e == 0 {
			n = int(v)
		}
	})
	return n
}
