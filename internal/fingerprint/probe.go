package fingerprint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchseal/benchseal/schemas"
)

// ProbePaths are the self-description endpoints of the engines benchseal
// knows (OpenAI, vLLM, SGLang), in the order they are asked.
var ProbePaths = []string{"/v1/models", "/version", "/server_info", "/get_server_info", "/get_model_info", "/health"}

// MetricsLimit caps the bytes read from one /metrics scrape.
const MetricsLimit = 16 << 20

// Capture asks a server every ProbePaths endpoint and returns what it said.
// header is sent (an API key may be in it) and never recorded. when is
// "before" or "after".
func Capture(ctx context.Context, client *http.Client, target, baseURL string, header http.Header, when string) schemas.ServerCapture {
	return schemas.ServerCapture{Schema: schemas.ProbeSchema, Target: target, When: when, At: time.Now().UTC(),
		BaseURL: Redact(baseURL), Probes: Probe(ctx, client, baseURL, header)}
}

// Probe GETs each of ProbePaths. An endpoint that answers 404 or 405 is not
// served and left out; any other answer is kept with its status and its
// body, redacted; one that could not be reached is kept with Status 0 and
// the error, so a reader sees what was tried.
func Probe(ctx context.Context, client *http.Client, baseURL string, header http.Header) []schemas.Probe {
	out := []schemas.Probe{}
	for _, path := range ProbePaths {
		p, served := probeOne(ctx, client, strings.TrimSuffix(baseURL, "/")+path, header)
		if served {
			p.Path = path
			out = append(out, p)
		}
	}
	return out
}

func probeOne(ctx context.Context, client *http.Client, url string, header http.Header) (schemas.Probe, bool) {
	var p schemas.Probe
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		p.Error = Redact(err.Error())
		return p, true
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		p.Error = Redact(err.Error())
		return p, true
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		return p, false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, schemas.ProbeBodyLimit+1))
	if err != nil {
		p.Error = Redact(err.Error())
	}
	if len(body) > schemas.ProbeBodyLimit {
		body, p.Truncated = body[:schemas.ProbeBodyLimit], true
	}
	p.Status = resp.StatusCode
	p.ContentType = resp.Header.Get("Content-Type")
	p.Body = Redact(strings.ToValidUTF8(string(body), "\uFFFD"))
	return p, true
}

// MetricsError says why a /metrics scrape failed; the raw text read so far
// is still returned next to it.
type MetricsError struct {
	URL    string
	Status int // 0 when no answer came
	Err    error
}

func (e *MetricsError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("scrape %s: status %d: %v", e.URL, e.Status, e.Err)
	}
	return fmt.Sprintf("scrape %s: %v", e.URL, e.Err)
}

func (e *MetricsError) Unwrap() error { return e.Err }

// ScrapeMetrics GETs baseURL/metrics and parses it with Prometheus's text
// parser. The raw text (redacted) is returned even when it does not parse,
// so it can be kept as evidence.
func ScrapeMetrics(ctx context.Context, client *http.Client, baseURL string, header http.Header) ([]byte, map[string]*dto.MetricFamily, error) {
	url := strings.TrimSuffix(baseURL, "/") + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, &MetricsError{URL: url, Err: err}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, &MetricsError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MetricsLimit))
	raw = []byte(Redact(string(raw)))
	if err != nil {
		return raw, nil, &MetricsError{URL: url, Status: resp.StatusCode, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return raw, nil, &MetricsError{URL: url, Status: resp.StatusCode, Err: errors.New("not 200")}
	}
	fams, err := ParseMetrics(raw)
	if err != nil {
		return raw, nil, &MetricsError{URL: url, Status: resp.StatusCode, Err: err}
	}
	return raw, fams, nil
}

// ParseMetrics parses Prometheus text exposition format, accepting UTF-8
// metric names.
func ParseMetrics(raw []byte) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(raw))
}

// Known cache counters. The hit counters are listed in the order CacheHits
// prefers them.
const (
	VLLMMMCacheHits        = "vllm:mm_cache_hits_total"
	VLLMMMCacheQueries     = "vllm:mm_cache_queries_total"
	VLLMPrefixCacheHits    = "vllm:prefix_cache_hits_total"
	VLLMPrefixCacheQueries = "vllm:prefix_cache_queries_total"
	VLLMGPUPrefixHits      = "vllm:gpu_prefix_cache_hits_total"
	VLLMGPUPrefixQueries   = "vllm:gpu_prefix_cache_queries_total"
	SGLangCachedTokens     = "sglang:cached_tokens_total"
)

var cacheCounterNames = []string{VLLMMMCacheHits, VLLMMMCacheQueries, VLLMPrefixCacheHits, VLLMPrefixCacheQueries,
	VLLMGPUPrefixHits, VLLMGPUPrefixQueries, SGLangCachedTokens}

// hitCounters in order of preference: a multimodal cache hit means a whole
// audio input was answered from cache, which is what a perturbed run must
// never see; prefix-cache tokens come next (they also count the shared
// prompt template, so they may grow honestly).
var hitCounters = []string{VLLMMMCacheHits, VLLMPrefixCacheHits, VLLMGPUPrefixHits, SGLangCachedTokens}

// CacheCounters returns the known cache counters present in fams, each
// summed over its label sets (one per model or engine). A family may be
// exposed with or without its _total suffix.
func CacheCounters(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, name := range cacheCounterNames {
		f, ok := fams[name]
		if !ok {
			f, ok = fams[strings.TrimSuffix(name, "_total")]
		}
		if !ok {
			continue
		}
		var sum float64
		for _, m := range f.GetMetric() {
			switch {
			case m.Counter != nil:
				sum += m.GetCounter().GetValue()
			case m.Untyped != nil:
				sum += m.GetUntyped().GetValue()
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			}
		}
		out[name] = sum
	}
	return out
}

// CacheDelta is how much one cache-hit counter grew over a window.
type CacheDelta struct {
	Counter string  // one of the hit counter names
	Hits    float64 // after - before, in the counter's unit (items or tokens)
}

// ErrNoCacheCounter: neither scrape has a known cache-hit counter.
var ErrNoCacheCounter = errors.New("no known cache-hit counter in /metrics")

// CounterResetError: a counter went down, so the server restarted (or
// reset its metrics) in the window and the delta means nothing.
type CounterResetError struct {
	Counter       string
	Before, After float64
}

func (e *CounterResetError) Error() string {
	return fmt.Sprintf("counter %s went down from %g to %g: the server restarted or reset its metrics", e.Counter, e.Before, e.After)
}

// CacheHits is the growth of the first hit counter (in hitCounters order:
// vllm:mm_cache_hits_total, vllm:prefix_cache_hits_total,
// vllm:gpu_prefix_cache_hits_total, sglang:cached_tokens_total) present in
// both scrapes. Query counters are never counted as hits.
func CacheHits(before, after map[string]float64) (CacheDelta, error) {
	for _, name := range hitCounters {
		b, okb := before[name]
		a, oka := after[name]
		if !okb || !oka {
			continue
		}
		if a < b {
			return CacheDelta{Counter: name}, &CounterResetError{Counter: name, Before: b, After: a}
		}
		return CacheDelta{Counter: name, Hits: a - b}, nil
	}
	return CacheDelta{}, ErrNoCacheCounter
}
