package sim

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// SGLang-Omni's two /metrics designs (Config.SGLangMetrics).
const (
	// SGLangHTTPMetrics: serve/metrics.py's HTTP middleware and pipeline
	// gauges (sglang_omni_http_requests_total{method,route,status}, ...).
	SGLangHTTPMetrics = "http"
	// SGLangRuntimeMetrics: the prometheus_client design of newer index
	// files (sgl-project/sglang-omni sglang_omni/metrics/runtime.py
	// @ee5df70a, serve/speech_metrics.py@843e9ec9): ASR families without
	// a route label, sglang_omni:asr_requests_total{status} counting every
	// request accepted when it arrives and once more by how it ended
	// (completed, rejected, failed, cancelled), and histograms of the
	// completed ones.
	SGLangRuntimeMetrics = "runtime"
)

// asrStatuses are sglang_omni:asr_requests_total's status values, in the
// order the simulator writes them.
var asrStatuses = []string{"accepted", "cancelled", "completed", "failed", "rejected"}

// asrOutcome is how one transcription ended, for the runtime design:
// set by the handler (shed at admission, ok where it counts a success),
// read once the handler returns.
type asrOutcome struct {
	mu        sync.Mutex
	shed, ok  bool
	t         timing
	seconds   float64 // input audio
	stream    bool
	cancelled bool
}

type asrOutcomeKey struct{}

func outcomeOf(r *http.Request) *asrOutcome {
	o, _ := r.Context().Value(asrOutcomeKey{}).(*asrOutcome)
	return o
}

// markShed and markOK record a transcription's end for the runtime
// design (no-ops without it).
func markShed(r *http.Request) {
	if o := outcomeOf(r); o != nil {
		o.mu.Lock()
		o.shed = true
		o.mu.Unlock()
	}
}

func markOK(r *http.Request, t timing, seconds float64, stream bool) {
	if o := outcomeOf(r); o != nil {
		o.mu.Lock()
		o.ok, o.t, o.seconds, o.stream = true, t, seconds, stream
		o.mu.Unlock()
	}
}

// serveASRCounted serves a transcription and counts it as the runtime
// design's SpeechMetricsMiddleware does: accepted at once, then
// completed (with its latency, input duration, summed engine time and,
// streamed, its time to first text), rejected (shed), cancelled (the
// client left) or failed.
func (s *Server) serveASRCounted(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.metrics.asr("accepted", nil)
	o := &asrOutcome{}
	inner := r.WithContext(context.WithValue(r.Context(), asrOutcomeKey{}, o))
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.mux.ServeHTTP(rec, inner)
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.shed:
		s.metrics.asr("rejected", nil)
	case o.ok && rec.status == http.StatusOK:
		t := o.t
		t.e2e = time.Since(start).Seconds()
		s.metrics.asr("completed", &asrObs{t: t, seconds: o.seconds, stream: o.stream})
	case r.Context().Err() != nil:
		s.metrics.asr("cancelled", nil)
	default:
		s.metrics.asr("failed", nil)
	}
	if s.cfg.RequestLog != nil {
		s.logMu.Lock()
		fmt.Fprintf(s.cfg.RequestLog, "sim: %s %s %d %.2fms\n", r.Method, r.URL.Path, rec.status, float64(time.Since(start).Microseconds())/1000)
		s.logMu.Unlock()
	}
}

// asrObs is a completed transcription's observations.
type asrObs struct {
	t       timing
	seconds float64
	stream  bool
}

// asr counts one status of the runtime design (and a completed one's
// observations), after MetricsLag as every count.
func (m *metrics) asr(status string, o *asrObs) {
	if m.later(func() { m.asrNow(status, o) }) {
		return
	}
	m.asrNow(status, o)
}

func (m *metrics) asrNow(status string, o *asrObs) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.c.asrStatus == nil {
		m.c.asrStatus = map[string]int64{}
	}
	m.c.asrStatus[status]++
	if o == nil {
		return
	}
	m.c.asrLatency.observe(o.t.e2e)
	m.c.asrInput.observe(o.seconds)
	m.c.asrEngine.observe(o.t.prefill + o.t.decode)
	if o.stream {
		m.c.asrTTFT.observe(o.t.queue + o.t.prefill)
	}
}

// writeSGLangOmniRuntime renders the runtime design's ASR families as
// prometheus_client writes them (its buckets, LATENCY_BUCKETS_S, were not
// read: the simulator uses serve/metrics.py's).
func writeSGLangOmniRuntime(p *promWriter, m *counts, running int) {
	p.family("sglang_omni:asr_requests_total", "counter", "ASR HTTP requests by terminal status.")
	for _, st := range asrStatuses {
		p.printf("sglang_omni:asr_requests_total{status=%q} %s\n", st, pyFloat(float64(m.asrStatus[st])))
	}
	p.family("sglang_omni:asr_requests_running", "gauge", "ASR HTTP requests currently in progress.")
	p.printf("sglang_omni:asr_requests_running %s\n", pyFloat(float64(running)))
	for _, h := range []struct {
		name, help string
		h          *hist
	}{
		{"sglang_omni:asr_request_latency_seconds", "ASR HTTP request latency for completed responses.", m.asrLatency},
		{"sglang_omni:asr_input_duration_seconds", "Input audio duration for completed ASR requests.", m.asrInput},
		{"sglang_omni:asr_engine_latency_seconds", "Summed engine execution time for a completed ASR request.", m.asrEngine},
		{"sglang_omni:asr_text_ttft_seconds", "Time to first transcript delta for streaming ASR requests.", m.asrTTFT},
	} {
		p.histogram(h.name, h.help, h.h)
	}
}
