//go:build !linux

package bench

import "net"

// sendMore is linux's MSG_MORE write; elsewhere the header block is
// written as usual.
func sendMore(net.Conn, []byte) (int, error, bool) { return 0, nil, false }
