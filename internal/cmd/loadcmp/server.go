package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// serverStats is what GET /__stats reports about the requests since the
// last reset.
type serverStats struct {
	Requests    int64   `json:"requests"`
	MaxInFlight int64   `json:"max_in_flight"`
	ServiceP50S float64 `json:"service_p50_s"` // headers read -> response written
	ServiceP99S float64 `json:"service_p99_s"`
}

// nullServer answers every transcription at once, after reading the whole
// body, and counts requests in flight the way a client means it: from the
// first byte of a request read on a connection to the moment its response
// is handed to the kernel. (Counting running handlers would miss requests
// whose headers wait in a socket buffer while two busy cores serve others.)
// A closed-loop client sends nothing on a connection before it has read the
// previous response, so a connection is busy with at most one request.
type nullServer struct {
	inFlight, max, n atomic.Int64
	mu               sync.Mutex
	service          []float64
}

func (s *nullServer) enter() {
	cur := s.inFlight.Add(1)
	for {
		m := s.max.Load()
		if cur <= m || s.max.CompareAndSwap(m, cur) {
			return
		}
	}
}

type connKey struct{}

// trackedConn marks its connection busy at the first byte of a request.
type trackedConn struct {
	net.Conn
	s    *nullServer
	busy atomic.Bool
}

func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.busy.CompareAndSwap(false, true) {
		c.s.enter()
	}
	return n, err
}

type trackedListener struct {
	net.Listener
	s *nullServer
}

func (l trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &trackedConn{Conn: c, s: l.s}, nil
}

func (s *nullServer) idle(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*trackedConn); ok && c.busy.CompareAndSwap(true, false) {
		s.inFlight.Add(-1)
	}
}

func (s *nullServer) transcribe(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	_, err := io.Copy(io.Discard, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
	} else {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"ok"}`))
	}
	// Idle before the response leaves: the next request on this
	// connection can only come after it, and must count again.
	s.idle(r)
	w.(http.Flusher).Flush()
	s.n.Add(1)
	d := time.Since(t0).Seconds()
	s.mu.Lock()
	s.service = append(s.service, d)
	s.mu.Unlock()
}

func (s *nullServer) stats(w http.ResponseWriter, r *http.Request) {
	s.idle(r) // the control connection is not load
	s.mu.Lock()
	svc := slices.Clone(s.service)
	if r.URL.Query().Get("reset") == "1" {
		s.service = s.service[:0]
		s.mu.Unlock()
		st := serverStats{Requests: s.n.Swap(0), MaxInFlight: s.max.Swap(0)}
		fill(&st, svc)
		json.NewEncoder(w).Encode(st)
		return
	}
	s.mu.Unlock()
	st := serverStats{Requests: s.n.Load(), MaxInFlight: s.max.Load()}
	fill(&st, svc)
	json.NewEncoder(w).Encode(st)
}

func fill(st *serverStats, svc []float64) {
	slices.Sort(svc)
	st.ServiceP50S, st.ServiceP99S = percentile(svc, 50), percentile(svc, 99)
}

// serverMain is the "server" role: it prints its base URL on the first
// line of stdout and serves until SIGTERM or stdin closes.
func serverMain(args []string) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadcmp: error: listen %s: %v\n", *addr, err)
		return 1
	}
	s := &nullServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcribe)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		s.idle(r)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object":"list","data":[{"id":"null","object":"model"}]}`))
	})
	mux.HandleFunc("GET /__stats", s.stats)
	// A backlog of idle keep-alive connections is normal here: 128 clients'
	// worth, reused across levels.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 5 * time.Minute,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin) // the parent died or closed our stdin
		ln.Close()
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	go func() { <-sig; ln.Close() }()
	if err := srv.Serve(trackedListener{ln, s}); err != nil && !isClosed(err) {
		fmt.Fprintf(os.Stderr, "loadcmp: error: serve: %v\n", err)
		return 1
	}
	return 0
}

func isClosed(err error) bool {
	return errors.Is(err, http.ErrServerClosed) || errors.Is(err, net.ErrClosed)
}
