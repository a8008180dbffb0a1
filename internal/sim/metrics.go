package sim

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
)

// Token accounting of the simulated model: what the cache counters move by.
// Qwen3-ASR-like encoders emit about 25 audio tokens per second; the chat
// template adds a fixed prompt around them.
const (
	audioTokensPerSecond = 25
	promptTemplateTokens = 16
)

func promptTokens(seconds float64) int64 {
	return promptTemplateTokens + int64(math.Ceil(seconds*audioTokensPerSecond))
}

// counts are the numbers /metrics exposes.
type counts struct {
	requests        int64 // answered, any status
	succeeded       int64
	failed          int64 // 4xx/5xx answers, shed included, and abandoned requests
	prefixQueries   int64 // tokens
	prefixHits      int64 // tokens
	mmQueries       int64 // items (one audio per request)
	mmHits          int64
	promptTokensSum int64
	completionSum   int64
	// stages are the engine's stage histograms (its row's
	// Metrics.Stages but the HTTP one), by family.
	stages map[string]*hist
	// SGLang-Omni's HTTP middleware counts (serve/metrics.py): requests by
	// method, route and status, handler durations by method and route.
	http    map[httpKey]int64
	httpDur map[routeKey]*durations
	// vLLM-Omni's audio families (metrics.audio).
	audioDuration, audioRTF *hist
	audioFrames             int64
	// SGLang-Omni's runtime design (runtime_metrics.go): requests by
	// status and the completed ones' histograms.
	asrStatus                                map[string]int64
	asrLatency, asrInput, asrEngine, asrTTFT *hist
	// vLLM's WebSocket families (realtime.go): connections open, opened,
	// and the closed ones' durations.
	wsActive   int
	wsTotal    int64
	wsDuration *hist
}

// hist is one histogram: counts per upper bound, not cumulative, the last
// being +Inf.
type hist struct {
	bounds []float64
	counts []int64
	sum    float64
	count  int64
}

func (h *hist) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i]++
	h.sum += v
	h.count++
}

// timing is where one request's time went, as vLLM times it
// (vllm/v1/metrics/stats.py): seconds in the queue (arrival to
// admission), prefill (admission to first token), decode (first to last
// token) and end to end (arrival to finish).
type timing struct {
	queue, prefill, decode, e2e float64
}

// of is the stage's share of t, by the engine table's stage names.
func (t timing) of(stage string) (float64, bool) {
	switch stage {
	case engine.StageQueue:
		return t.queue, true
	case engine.StagePrefill:
		return t.prefill, true
	case engine.StageDecode:
		return t.decode, true
	case engine.StageInference:
		return t.prefill + t.decode, true
	case engine.StageTTFT:
		return t.queue + t.prefill, true
	case engine.StageE2E:
		return t.e2e, true
	}
	return 0, false // the HTTP handler's time is the middleware's (observeHTTP)
}

type routeKey struct{ method, route string }

type httpKey struct {
	method, route string
	status        int
}

// durations is one route's handler-duration histogram.
type durations struct {
	buckets []int64 // cumulative per sglangDurationBuckets
	count   int64
	sum     float64
}

// sglangDurationBuckets are serve/metrics.py's DEFAULT_DURATION_BUCKETS.
var sglangDurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// observeHTTP counts one HTTP request as SGLang-Omni's middleware does.
func (m *metrics) observeHTTP(method, route string, status int, seconds float64) {
	if m.later(func() { m.observeHTTPNow(method, route, status, seconds) }) {
		return
	}
	m.observeHTTPNow(method, route, status, seconds)
}

func (m *metrics) observeHTTPNow(method, route string, status int, seconds float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.http[httpKey{method, route, status}]++
	rk := routeKey{method, route}
	d := m.c.httpDur[rk]
	if d == nil {
		d = &durations{buckets: make([]int64, len(sglangDurationBuckets))}
		m.c.httpDur[rk] = d
	}
	d.count++
	d.sum += max(seconds, 0)
	for i, le := range sglangDurationBuckets {
		if seconds <= le {
			d.buckets[i]++
		}
	}
}

// httpKeys are the counted (method, route, status) in sorted order.
func (c *counts) httpKeys() []httpKey {
	keys := make([]httpKey, 0, len(c.http))
	for k := range c.http {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b httpKey) int {
		return cmp.Or(cmp.Compare(a.method, b.method), cmp.Compare(a.route, b.route), cmp.Compare(a.status, b.status))
	})
	return keys
}

// routeKeys are the timed (method, route) in sorted order.
func (c *counts) routeKeys() []routeKey {
	keys := make([]routeKey, 0, len(c.httpDur))
	for k := range c.httpDur {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b routeKey) int {
		return cmp.Or(cmp.Compare(a.method, b.method), cmp.Compare(a.route, b.route))
	})
	return keys
}

// metrics guards the counts; every request's update takes the lock for a
// few additions only.
type metrics struct {
	mu  sync.Mutex
	c   counts
	lag time.Duration // Config.MetricsLag
}

// later runs f lag from now and says so; false (f not run) when there is
// no lag.
func (m *metrics) later(f func()) bool {
	if m.lag <= 0 {
		return false
	}
	time.AfterFunc(m.lag, f)
	return true
}

// newMetrics makes the counts of an engine whose stage histograms are
// stages (its row of the engine table), with the engine's own buckets.
func newMetrics(stages []engine.StageFamily, lag time.Duration) *metrics {
	m := &metrics{lag: lag, c: counts{stages: map[string]*hist{}, http: map[httpKey]int64{}, httpDur: map[routeKey]*durations{},
		audioDuration: newHist(omniSecondsBuckets), audioRTF: newHist(omniRTFBuckets),
		asrLatency: newHist(sglangDurationBuckets), asrInput: newHist(sglangDurationBuckets), asrEngine: newHist(sglangDurationBuckets), asrTTFT: newHist(sglangDurationBuckets),
		wsDuration: newHist(vllmWebSocketBuckets)}}
	for _, f := range stages {
		if _, ok := (timing{}).of(f.Stage); ok {
			m.c.stages[f.Family] = &hist{bounds: f.Buckets, counts: make([]int64, len(f.Buckets)+1)}
		}
	}
	return m
}

// cacheQuery counts one lookup of a clip of tokens prompt tokens.
func (m *metrics) cacheQuery(tokens int64, hit bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.mmQueries++
	m.c.prefixQueries += tokens
	m.c.promptTokensSum += tokens
	if hit {
		m.c.mmHits++
		m.c.prefixHits += tokens
	}
}

// done counts a finished request and, when it succeeded, observes its
// stage times in every stage histogram (queue, prefill, decode,
// inference, ttft, e2e: one observation each per successful request, at
// its finish; vLLM observes ttft at the first token, which over a window
// that starts and ends idle counts the same).
func (m *metrics) done(ok bool, t timing, completionTokens int64) {
	if m.later(func() { m.doneNow(ok, t, completionTokens) }) {
		return
	}
	m.doneNow(ok, t, completionTokens)
}

func (m *metrics) doneNow(ok bool, t timing, completionTokens int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.requests++
	if !ok {
		m.c.failed++
		return
	}
	m.c.succeeded++
	m.c.completionSum += completionTokens
	for family, h := range m.c.stages {
		v, _ := t.of(stageOf[family])
		h.observe(v)
	}
}

// stageOf maps every stage family of the engine table to its stage.
var stageOf = func() map[string]string {
	out := map[string]string{}
	for _, f := range engine.StageFamilies {
		out[f.Family] = f.Stage
	}
	return out
}()

// snapshot copies the counts under the lock so that writing the text (which
// may block on a slow client) does not hold it.
func (m *metrics) snapshot() counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c
	c.stages = make(map[string]*hist, len(m.c.stages))
	for k, h := range m.c.stages {
		cp := *h
		cp.counts = slices.Clone(h.counts)
		c.stages[k] = &cp
	}
	c.asrStatus = maps.Clone(m.c.asrStatus)
	for _, h := range []**hist{&c.audioDuration, &c.audioRTF, &c.asrLatency, &c.asrInput, &c.asrEngine, &c.asrTTFT, &c.wsDuration} {
		cp := **h
		cp.counts = slices.Clone((*h).counts)
		*h = &cp
	}
	c.http = maps.Clone(m.c.http)
	c.httpDur = make(map[routeKey]*durations, len(m.c.httpDur))
	for k, d := range m.c.httpDur {
		cp := *d
		cp.buckets = slices.Clone(d.buckets)
		c.httpDur[k] = &cp
	}
	return c
}

// promWriter writes the Prometheus text exposition format (version 0.0.4).
type promWriter struct {
	w      io.Writer
	labels string // `model_name="..."`, already escaped
	err    error
}

func (p *promWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *promWriter) family(name, typ, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (p *promWriter) sample(name string, v float64) {
	if p.labels == "" {
		p.printf("%s %s\n", name, formatFloat(v))
		return
	}
	p.printf("%s{%s} %s\n", name, p.labels, formatFloat(v))
}

func (p *promWriter) counter(name, help string, v int64) {
	p.family(name, "counter", help)
	p.sample(name, float64(v))
}

func (p *promWriter) gauge(name, help string, v int) {
	p.family(name, "gauge", help)
	p.sample(name, float64(v))
}

func (p *promWriter) histogram(name, help string, h *hist) {
	p.family(name, "histogram", help)
	// An unlabelled family (SGLang-Omni's runtime design) writes no
	// braces but le's.
	lead, set := "", ""
	if p.labels != "" {
		lead, set = p.labels+",", "{"+p.labels+"}"
	}
	var cum int64
	for i, le := range h.bounds {
		cum += h.counts[i]
		p.printf("%s_bucket{%sle=\"%s\"} %d\n", name, lead, formatFloat(le), cum)
	}
	cum += h.counts[len(h.bounds)]
	p.printf("%s_bucket{%sle=\"+Inf\"} %d\n", name, lead, cum)
	p.printf("%s_sum%s %s\n", name, set, formatFloat(h.sum))
	p.printf("%s_count%s %d\n", name, set, h.count)
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// escapeLabel escapes a label value for the text format.
func escapeLabel(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			out = append(out, '\\', '\\')
		case '"':
			out = append(out, '\\', '"')
		case '\n':
			out = append(out, '\\', 'n')
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// audio observes one produced answer in vLLM-Omni's audio families
// (speechShape.audioFamilies), as observe_modality_at_finalize does at a
// request's finish (vllm-project/vllm-omni vllm_omni/metrics/modality.py@d6240742):
// its seconds in vllm_omni:audio_duration_s, its RTF (generation time ÷
// seconds) in vllm_omni:audio_rtf, its frames in
// vllm_omni:audio_frames_total.
func (m *metrics) audio(seconds, generation float64, frames int64) {
	if m.later(func() { m.audioNow(seconds, generation, frames) }) {
		return
	}
	m.audioNow(seconds, generation, frames)
}

func (m *metrics) audioNow(seconds, generation float64, frames int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.audioFrames += frames
	if seconds > 0 {
		m.c.audioDuration.observe(seconds)
		m.c.audioRTF.observe(generation / seconds)
	}
}

// vLLM-Omni's audio histogram buckets (vllm_omni/metrics/definitions.py
// SECONDS_BUCKETS, RTF_BUCKETS@d6240742).
var (
	omniSecondsBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300}
	omniRTFBuckets     = []float64{0.1, 0.25, 0.5, 0.75, 0.9, 1, 1.25, 1.5, 2, 5, 10}
)

func newHist(bounds []float64) *hist {
	return &hist{bounds: bounds, counts: make([]int64, len(bounds)+1)}
}

// vllmWebSocketBuckets are vllm:websocket_connection_duration_seconds'
// (vllm/entrypoints/openai/realtime/metrics.py@b42200fc).
var vllmWebSocketBuckets = []float64{0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}

// wsOpen counts an accepted WebSocket, as vLLM's middleware does at
// websocket.accept; wsClose its end, observing its duration.
func (m *metrics) wsOpen() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.wsActive++
	m.c.wsTotal++
}

func (m *metrics) wsClose(seconds float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.wsActive--
	m.c.wsDuration.observe(seconds)
}
