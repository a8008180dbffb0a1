package schemas

import "time"

// ProbeSchema names a server capture document
// (servers/<target>/probes-before.json, probes-after.json).
const ProbeSchema = "benchseal.probe/v1"

// GPUSample is one line of telemetry/gpu.jsonl: one GPU at one instant.
// TNs is a monotonic offset from Run.StartedAt, like a record's start_ns. A
// nil field is one NVML did not report.
type GPUSample struct {
	TNs          int64    `json:"t_ns"`
	GPU          int      `json:"gpu"` // NVML index
	UtilPct      *float64 `json:"util_pct"`
	MemUtilPct   *float64 `json:"mem_util_pct"`
	MemUsedBytes *uint64  `json:"mem_used_bytes"`
	PowerW       *float64 `json:"power_w"`
	SMClockMHz   *uint32  `json:"sm_clock_mhz"`
	TempC        *uint32  `json:"temp_c"`
}

// HostSample is one line of telemetry/host.jsonl. CPUPct is the busy share
// of all CPUs (0-100) since the previous sample, from /proc/stat; the first
// sample of a sampler has none.
type HostSample struct {
	TNs           int64    `json:"t_ns"`
	CPUPct        *float64 `json:"cpu_pct"`
	MemUsedBytes  int64    `json:"mem_used_bytes"` // MemTotal - MemAvailable
	MemTotalBytes int64    `json:"mem_total_bytes"`
	Load1         float64  `json:"load1"`
}

// ServerCapture is what a server said about itself at one moment: every
// probed endpoint that answered, bodies redacted.
type ServerCapture struct {
	Schema  string    `json:"schema"` // ProbeSchema
	Target  string    `json:"target"`
	When    string    `json:"when"` // "before" or "after" the sweep
	At      time.Time `json:"at"`
	BaseURL string    `json:"base_url"`
	Probes  []Probe   `json:"probes"`
}

// Probe is one GET of a server endpoint. Endpoints that could not be reached
// at all are kept with Status 0 and Error, so a reader sees what was tried.
type Probe struct {
	Path        string `json:"path"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	Body        string `json:"body"` // redacted, at most ProbeBodyLimit bytes
	Truncated   bool   `json:"truncated,omitempty"`
	Error       string `json:"error,omitempty"`
}

// ProbeBodyLimit caps the bytes kept of one probe's body.
const ProbeBodyLimit = 1 << 20

// The /metrics cache counters benchseal knows, by the names vLLM and SGLang
// expose. They are the keys of StepTelemetry's CacheBefore and CacheAfter:
// internal/fingerprint reads them out of a scrape, internal/claims derives
// cache_hits from them, and neither may import the other, so the names
// live here, once.
const (
	VLLMMMCacheHits        = "vllm:mm_cache_hits_total"
	VLLMMMCacheQueries     = "vllm:mm_cache_queries_total"
	VLLMPrefixCacheHits    = "vllm:prefix_cache_hits_total"
	VLLMPrefixCacheQueries = "vllm:prefix_cache_queries_total"
	VLLMGPUPrefixHits      = "vllm:gpu_prefix_cache_hits_total"
	VLLMGPUPrefixQueries   = "vllm:gpu_prefix_cache_queries_total"
	SGLangCachedTokens     = "sglang:cached_tokens_total"
)

// CacheCounterNames are every counter recorded in CacheBefore/CacheAfter.
var CacheCounterNames = []string{VLLMMMCacheHits, VLLMMMCacheQueries, VLLMPrefixCacheHits, VLLMPrefixCacheQueries,
	VLLMGPUPrefixHits, VLLMGPUPrefixQueries, SGLangCachedTokens}

// CacheHitCounters are the counters cache_hits may be the growth of, in
// order of preference (internal/claims takes the first present before and
// after a step): a multimodal cache hit is a whole audio input answered
// from cache, which a perturbed run must never see; prefix-cache tokens
// come next (they also count the shared prompt template, so they may grow
// honestly). Query counters are never hits.
var CacheHitCounters = []string{VLLMMMCacheHits, VLLMPrefixCacheHits, VLLMGPUPrefixHits, SGLangCachedTokens}

// StepTelemetry is one line of telemetry/steps.jsonl: the raw facts of one
// target at one level/repeat, written by internal/fingerprint's Recorder.
// It holds no summary: internal/claims computes the telemetry and cache
// figures of claims.json from these lines and the samples of gpu.jsonl and
// host.jsonl, and a verifier recomputes them the same way.
type StepTelemetry struct {
	Target      string `json:"target"`
	Concurrency int    `json:"concurrency"`
	Repeat      int    `json:"repeat"`
	StartNs     int64  `json:"start_ns"`
	EndNs       int64  `json:"end_ns"`
	GPUs        []int  `json:"gpus"` // NVML indices the target runs on
	// CacheBefore and CacheAfter are the known cache counters
	// (CacheCounterNames, each summed over its label sets) of the /metrics
	// scrapes before and after the step; absent when a scrape failed.
	CacheBefore map[string]float64 `json:"cache_before,omitempty"`
	CacheAfter  map[string]float64 `json:"cache_after,omitempty"`
	Notes       []string           `json:"notes,omitempty"` // why a fact is missing
	// SampleStartNs and SampleEndNs are the t_ns of the samples taken
	// just before the first measured request was sent and just after the
	// last one ended: internal/claims counts them in the window.
	SampleStartNs *int64 `json:"sample_start_ns,omitempty"`
	SampleEndNs   *int64 `json:"sample_end_ns,omitempty"`
}

// RequestCounter is an engine's /metrics counter of the requests it served,
// and the histogram of their end-to-end latency, as read in the engine's
// source (Source: file@commit). verify compares their growth over a step
// (servers/<t>/metrics/c<C>-r<R>-{before,after}.prom) with the step's
// records. A counter absent from a scrape is "not observed", never a pass.
type RequestCounter struct {
	Engine string
	Name   string // counter family, as exposed (with _total)
	// Match are label values a sample must carry to count (others are
	// summed over): SGLang-Omni counts every route it serves.
	Match map[string]string
	// StatusLabel is the label holding the HTTP status ("" when the
	// counter counts requests the engine finished, whatever the answer).
	StatusLabel string
	// Histogram is the e2e latency histogram family observed for the same
	// requests ("" when none), with the same Match.
	Histogram string
	Counts    string // what one increment is, in the engine's terms
	Source    string
}

// RequestCounters are the request counters benchseal knows, in order of
// preference: the first present in both scrapes of a step is used.
var RequestCounters = []RequestCounter{
	{Engine: "vllm", Name: "vllm:request_success_total", Histogram: "vllm:e2e_request_latency_seconds",
		Counts: "a request the engine finished, labelled finished_reason (stop, length, abort); requests refused before the engine (HTTP 4xx) are not counted; e2e_request_latency_seconds is observed for the same requests",
		Source: "vllm-project/vllm vllm/v1/metrics/loggers.py@005a810b (record: for finished_request in iteration_stats.finished_requests)"},
	{Engine: "sglang-omni", Name: "sglang_omni_http_requests_total", Match: map[string]string{"route": "/v1/audio/transcriptions"},
		StatusLabel: "status", Histogram: "sglang_omni_http_request_duration_seconds",
		Counts: "an HTTP request answered, labelled method, model_name, route and status; every route but /metrics is counted (/health too), hence the route filter; the duration histogram is the handler's time",
		Source: "sgl-project/sglang-omni sglang_omni/serve/metrics.py@0641581e (install_metrics_middleware, observe_http_request; the route label is the FastAPI route's path), sglang_omni/serve/transcriptions.py@0ac0a86e (TRANSCRIPTIONS_ENDPOINT)"},
	{Engine: "sglang", Name: "sglang:num_requests_total", Histogram: "sglang:e2e_request_latency_seconds",
		Counts: "a request the engine finished (observe_one_finished_request), with its e2e latency",
		Source: "sgl-project/sglang python/sglang/srt/metrics/collector.py@00ae9c15 (observe_one_finished_request)"},
}
