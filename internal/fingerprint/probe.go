package fingerprint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

// ProbePaths are the self-description endpoints of the engines benchseal
// knows (OpenAI, vLLM, SGLang), in the order they are asked. vLLM's
// /server_info (dev mode only) is asked for its config as JSON, where the
// knobs are nested (scheduler_config.max_num_seqs, ...; SGLang ignores the
// query); /metrics is kept because vllm:cache_config_info carries knobs
// without dev mode. SGLang-Omni has none of /version, /server_info,
// /get_server_info, /get_model_info: its knobs are launch arguments
// (ServedKnobs, DeclaredKnobs).
var ProbePaths = []string{"/v1/models", "/version", "/server_info?config_format=json", "/get_server_info", "/get_model_info", "/health", "/metrics"}

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
// body, redacted and scrubbed of the secret header values sent; one that
// could not be reached is kept with Status 0 and the error, so a reader
// sees what was tried.
func Probe(ctx context.Context, client *http.Client, baseURL string, header http.Header) []schemas.Probe {
	out := []schemas.Probe{}
	sent := sentSecrets(header)
	for _, path := range ProbePaths {
		p, served := probeOne(ctx, client, strings.TrimSuffix(baseURL, "/")+path, header, sent)
		if served {
			p.Path = path
			out = append(out, p)
		}
	}
	return out
}

func probeOne(ctx context.Context, client *http.Client, url string, header http.Header, sent []string) (schemas.Probe, bool) {
	var p schemas.Probe
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		p.Error = Redact(scrub(err.Error(), sent))
		return p, true
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		p.Error = Redact(scrub(err.Error(), sent))
		return p, true
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
		return p, false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, schemas.ProbeBodyLimit+1))
	if err != nil {
		p.Error = Redact(scrub(err.Error(), sent))
	}
	if len(body) > schemas.ProbeBodyLimit {
		body, p.Truncated = body[:schemas.ProbeBodyLimit], true
	}
	p.Status = resp.StatusCode
	p.ContentType = resp.Header.Get("Content-Type")
	p.Body = Redact(scrub(strings.ToValidUTF8(string(body), "\uFFFD"), sent))
	return p, true
}

// sentSecrets lists, longest first, the secret values of header (those
// under a name like Authorization, Cookie or X-Api-Key): each value whole,
// its credential without the scheme (Bearer K: K) and each cookie's value,
// since a server that echoes a request (a debug endpoint, an error
// message) may quote any of them where no pattern of Redact finds them.
func sentSecrets(header http.Header) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for name, vals := range header {
		if !secretKeyRe.MatchString(name) || harmlessKey(name) {
			continue
		}
		for _, v := range vals {
			add(v)
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				add(cred)
			}
			if strings.HasSuffix(strings.ToLower(name), "cookie") {
				for part := range strings.SplitSeq(v, ";") {
					if _, val, ok := strings.Cut(part, "="); ok {
						add(val)
					}
				}
			}
		}
	}
	// Longest first, so that a value containing another is replaced whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// scrub replaces every occurrence of each sent secret in s, whatever
// surrounds it.
func scrub(s string, sent []string) string {
	for _, v := range sent {
		s = strings.ReplaceAll(s, v, Redacted)
	}
	return s
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
	return scrapeParsed(ctx, client, baseURL, header, ParseMetrics)
}

// scrapeParsed is ScrapeMetrics with parse as the parser (ParseMetrics,
// or a Families' Parse).
func scrapeParsed(ctx context.Context, client *http.Client, baseURL string, header http.Header,
	parse func([]byte) (map[string]*dto.MetricFamily, error)) ([]byte, map[string]*dto.MetricFamily, error) {
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
	raw = []byte(RedactMetrics(scrub(string(raw), sentSecrets(header))))
	if err != nil {
		return raw, nil, &MetricsError{URL: url, Status: resp.StatusCode, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return raw, nil, &MetricsError{URL: url, Status: resp.StatusCode, Err: errors.New("not 200")}
	}
	fams, err := parse(raw)
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

// Known cache counters (names, order and meaning in internal/engine's
// table, the one list internal/claims also reads; kept here under their
// old names).
const (
	VLLMMMCacheHits        = engine.VLLMMMCacheHits
	VLLMMMCacheQueries     = engine.VLLMMMCacheQueries
	VLLMPrefixCacheHits    = engine.VLLMPrefixCacheHits
	VLLMPrefixCacheQueries = engine.VLLMPrefixCacheQueries
	VLLMGPUPrefixHits      = engine.VLLMGPUPrefixHits
	VLLMGPUPrefixQueries   = engine.VLLMGPUPrefixQueries
	SGLangCachedTokens     = engine.SGLangCachedTokens
)

// CacheCounters returns the known cache counters (engine.CacheCounterNames)
// present in fams, each summed over its label sets (one per model or
// engine). A family may be exposed with or without its _total suffix. A
// sum that is negative, NaN or infinite is no counter value (and JSON
// cannot carry the last two) and is left out. It only reads: how much of
// a counter is a cache hit is internal/claims' business (CacheDelta).
func CacheCounters(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, name := range engine.CacheCounterNames {
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
		if sum >= 0 && !math.IsInf(sum, 1) {
			out[name] = sum
		}
	}
	// A counter the engine creates at its first increment (plain SGLang's
	// sglang:cached_tokens_total) is 0, not unknown, when the server shows
	// other families of that engine. SGLang-Omni shows no sglang: family
	// (its families are sglang_omni_*), so its cache stays unobservable.
	for _, e := range engine.All() {
		for _, c := range e.Metrics.CacheCounters {
			if !c.LazilyCreated || hasFamily(fams, c.Name) {
				continue
			}
			for name := range fams {
				if strings.HasPrefix(name, e.Metrics.Prefix) {
					out[c.Name] = 0
					break
				}
			}
		}
	}
	return out
}

// hasFamily says whether fams holds the counter name, with or without its
// _total suffix.
func hasFamily(fams map[string]*dto.MetricFamily, name string) bool {
	_, ok := fams[name]
	_, bare := fams[strings.TrimSuffix(name, "_total")]
	return ok || bare
}
