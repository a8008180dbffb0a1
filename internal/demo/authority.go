package demo

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/benchseal/benchseal/internal/tsa"
)

// StartAuthority serves a local RFC 3161 time-stamping authority on a free
// loopback port, with a certificate made now (tsa.Authority), so that the
// demo pre-registers its run as `run --tsa` does with a real one. Its
// tokens show how a reader checks the times; they prove nothing about
// time to anyone but the machine that ran it.
func StartAuthority() (url string, chainPEM []byte, stop func(), err error) {
	a, err := tsa.NewAuthority()
	if err != nil {
		return "", nil, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	hs := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String() + "/api/v1/timestamp", a.ChainPEM(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}, nil
}
