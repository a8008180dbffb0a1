package sim

import (
	"context"
	"net"
	"net/http"
	"time"
)

// ShutdownGrace is how long Serve lets requests in flight finish once its
// context is done, before it closes their connections.
const ShutdownGrace = 5 * time.Second

// Serve serves s on ln until ctx is done, then shuts down gracefully
// (ShutdownGrace). It returns nil after such a shutdown, or the error that
// stopped serving before it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.Close()
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	return nil
}
