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

// latencyBuckets are the upper bounds (seconds) of the e2e latency
// histogram: fine at the low end, where a simulator's latencies live.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

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
	latencyCounts   []int64 // per bucket, not cumulative; last is +Inf
	latencySum      float64
	latencyCount    int64
	// SGLang-Omni's HTTP middleware counts (serve/metrics.py): requests by
	// method, route and status, handler durations by method and route.
	http    map[httpKey]int64
	httpDur map[routeKey]*durations
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
	mu sync.Mutex
	c  counts
}

func newMetrics() *metrics {
	return &metrics{c: counts{latencyCounts: make([]int64, len(latencyBuckets)+1),
		http: map[httpKey]int64{}, httpDur: map[routeKey]*durations{}}}
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

// done counts a finished request and its end-to-end latency.
func (m *metrics) done(ok bool, seconds float64, completionTokens int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.requests++
	if !ok {
		m.c.failed++
		return
	}
	m.c.succeeded++
	m.c.completionSum += completionTokens
	i := 0
	for i < len(latencyBuckets) && seconds > latencyBuckets[i] {
		i++
	}
	m.c.latencyCounts[i]++
	m.c.latencySum += seconds
	m.c.latencyCount++
}

// snapshot copies the counts under the lock so that writing the text (which
// may block on a slow client) does not hold it.
func (m *metrics) snapshot() counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c
	c.latencyCounts = append([]int64(nil), m.c.latencyCounts...)
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

func (p *promWriter) histogram(name, help string, m *counts) {
	p.family(name, "histogram", help)
	var cum int64
	for i, le := range latencyBuckets {
		cum += m.latencyCounts[i]
		p.printf("%s_bucket{%s,le=\"%s\"} %d\n", name, p.labels, formatFloat(le), cum)
	}
	cum += m.latencyCounts[len(latencyBuckets)]
	p.printf("%s_bucket{%s,le=\"+Inf\"} %d\n", name, p.labels, cum)
	p.printf("%s_sum{%s} %s\n", name, p.labels, formatFloat(m.latencySum))
	p.printf("%s_count{%s} %d\n", name, p.labels, m.latencyCount)
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
