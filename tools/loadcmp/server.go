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
	// MaxSampled is the most connections seen, every 2 ms, either busy
	// or holding unread request bytes in the kernel: requests that reached
	// the server while its goroutines waited for a core. Only on Linux.
	MaxSampled int64   `json:"max_sampled"`
	CPUS       float64 `json:"cpu_s"` // the server's user+system CPU since the last reset
}

// nullServer answers every transcription at once, after reading the whole
// body, and counts requests in flight the way a client means it: from the
// first byte of a request read on a connection to the moment its response
// is handed to the kernel. (Counting running handlers would miss requests
// whose headers wait in a socket buffer while two busy cores serve others.)
// A closed-loop client sends nothing on a connection before it has read the
// previous response, so a connection is busy with at most one request.
type nullServer struct {
	inFlight, max, n, sampled atomic.Int64
	mu                        sync.Mutex
	service                   []float64
	conns                     map[*trackedConn]struct{}
	cpu0                      time.Duration
}

// sample counts, every 2 ms, the connections that are busy or have
// request bytes waiting in the kernel.
func (s *nullServer) sample(stop <-chan struct{}) {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	var conns []*trackedConn
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		conns = conns[:0]
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		var n int64
		for _, c := range conns {
			if c.busy.Load() || unread(c.raw) > 0 {
				n++
			}
		}
		for {
			m := s.sampled.Load()
			if n <= m || s.sampled.CompareAndSwap(m, n) {
				break
			}
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
	raw  syscall.RawConn
	busy atomic.Bool
}

func (c *trackedConn) Close() error {
	c.s.mu.Lock()
	delete(c.s.conns, c)
	c.s.mu.Unlock()
	return c.Conn.Close()
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
	tc := &trackedConn{Conn: c, s: l.s}
	if sc, ok := c.(syscall.Conn); ok {
		tc.raw, _ = sc.SyscallConn()
	}
	l.s.mu.Lock()
	l.s.conns[tc] = struct{}{}
	l.s.mu.Unlock()
	return tc, nil
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
		now := cpuTime()
		st := serverStats{Requests: s.n.Swap(0), MaxInFlight: s.max.Swap(0), MaxSampled: s.sampled.Swap(0),
			CPUS: (now - s.cpu0).Seconds()}
		s.cpu0 = now
		s.mu.Unlock()
		fill(&st, svc)
		json.NewEncoder(w).Encode(st)
		return
	}
	s.mu.Unlock()
	st := serverStats{Requests: s.n.Load(), MaxInFlight: s.max.Load(), MaxSampled: s.sampled.Load(),
		CPUS: (cpuTime() - s.cpu0).Seconds()}
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
	s := &nullServer{conns: map[*trackedConn]struct{}{}, cpu0: cpuTime()}
	stop := make(chan struct{})
	defer close(stop)
	go s.sample(stop)
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
