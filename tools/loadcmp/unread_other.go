//go:build !linux

package main

import "syscall"

// unread is not sampled outside Linux: only the first-byte count is kept.
func unread(syscall.RawConn) int { return 0 }
