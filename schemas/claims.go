package schemas

import (
	"strconv"
	"strings"
)

// Claims is claims.json: the tables a person publishes, recomputable from
// the records by internal/claims.
type Claims struct {
	Schema  string         `json:"schema"` // ClaimsSchema
	Scoring *Scoring       `json:"scoring,omitempty"`
	Targets []TargetClaims `json:"targets"`
	// Probes: the active cache probe of each probed target, in run order;
	// absent when the run made none (--no-cache-probe, older runs).
	Probes []CacheProbe `json:"probes,omitempty"`
}

// CacheProbe is a target's active cache probe claim (internal/claims.ProbeOf). Latencies are milliseconds from a
// request's start to its end; Speedup is median(variants)/median(repeats)
// with its seeded 95 % bootstrap interval [Lo, Hi].
type CacheProbe struct {
	Target          string  `json:"target"`
	Repeats         int     `json:"repeats"`  // successful repeat requests
	Variants        int     `json:"variants"` // successful variant requests
	RepeatMedianMs  float64 `json:"repeat_median_ms"`
	VariantMedianMs float64 `json:"variant_median_ms"`
	Speedup         float64 `json:"speedup"`
	SpeedupLo       float64 `json:"speedup_lo"`
	SpeedupHi       float64 `json:"speedup_hi"`
	// CounterGrowth is the growth of the server's cache counters over the
	// probe (vLLM's vllm:mm_cache_* series), by series; absent where the
	// server exposes none (SGLang-Omni).
	CounterGrowth map[string]float64 `json:"counter_growth,omitempty"`
	// CounterAgrees says whether the server's own count of whole inputs
	// answered from its cache (vLLM's vllm:mm_cache_hits_total in
	// CounterGrowth) tells the same as the latencies: hits and Caches, or
	// no hit and not Caches. Absent where no such counter was scraped or
	// the probe has no verdict (internal/claims.ProbeCounter).
	CounterAgrees *bool  `json:"counter_agrees,omitempty"`
	Verdict       string `json:"verdict"`
	// Caches is true when Verdict is the "caches identical audio" one.
	Caches bool `json:"caches"`
}

// TargetClaims are the claims of one target, one entry per level in run order.
type TargetClaims struct {
	Target string        `json:"target"`
	Levels []LevelClaims `json:"levels"`
}

// LevelClaims summarise one concurrency level: every repeat, and the
// median, min and max over repeats of each metric.
type LevelClaims struct {
	Concurrency int       `json:"concurrency"`
	Repeats     []Metrics `json:"repeats"`
	Median      Metrics   `json:"median"`
	Min         Metrics   `json:"min"`
	Max         Metrics   `json:"max"`
}

// Metrics of one level/repeat (or the median/min/max of them): the core
// every task has (counts, window, throughput, RTFx, latency, in-flight,
// telemetry) and the task's quality figure (Quality), which run.json's
// protocol.task discriminates: internal/task's Quality of that task
// computes it. Its JSON name is ASR's, the first task's ("wer": the word
// error rate, or the character error rate when Claims.Scoring.Unit is
// "char"), so claims written before the split decode as ASR's. Quality
// is null when the corpus has no references. Times are in seconds. RTFx,
// the latencies and TTFB are null when no request succeeded (no TTFB:
// none carried a first byte), never 0 s: nothing was measured. Older
// claims published 0 there; they still decode (as 0).
type Metrics struct {
	Requests     int            `json:"requests"`
	Succeeded    int            `json:"succeeded"`
	Failed       int            `json:"failed"`
	WindowS      float64        `json:"window_s"`
	ReqPerS      float64        `json:"req_per_s"`
	RTFx         *float64       `json:"rtfx"`
	LatencyMeanS *float64       `json:"latency_mean_s"`
	LatencyP50S  *float64       `json:"latency_p50_s"`
	LatencyP90S  *float64       `json:"latency_p90_s"`
	LatencyP95S  *float64       `json:"latency_p95_s"`
	LatencyP99S  *float64       `json:"latency_p99_s"`
	LatencyMaxS  *float64       `json:"latency_max_s"`
	TTFBP50S     *float64       `json:"ttfb_p50_s"`
	PeakInFlight int            `json:"peak_in_flight"` // measured phase only
	Quality      *float64       `json:"wer"`
	Errors       map[string]int `json:"errors"`

	// LatencyPercentiles are the latency percentiles run.json's
	// protocol.percentiles asked for (run --percentiles), in its order,
	// defined as the fixed ones are (median, min and max over repeats
	// percentile by percentile); absent when it asked for none.
	LatencyPercentiles []LatencyPercentile `json:"latency_percentiles,omitempty"`

	// MeanInFlight is the measured requests' mean in flight over the
	// window (Σ latency / window_s, Little's law) and
	// FullConcurrencyShare the share of the window with all C of them in
	// flight (internal/claims.SteadyState); absent in claims sealed by a
	// build that did not compute them.
	MeanInFlight         *float64 `json:"mean_in_flight,omitempty"`
	FullConcurrencyShare *float64 `json:"full_concurrency_share,omitempty"`

	// An open-loop run's figures (internal/claims.OpenLoop), absent in a
	// closed loop's: the level's offered rate (run.json's request rate);
	// the rate the measured requests were sent at ((n − 1) / (last start −
	// first start)); their send lateness (start − planned) p50 and p99,
	// failures included; and the latency from the planned arrival (end −
	// planned: the user's view, the client's queue included) p50 and p99
	// of the successes.
	OfferedRate        *float64 `json:"offered_rate_per_s,omitempty"`
	SendRate           *float64 `json:"send_rate_per_s,omitempty"`
	LatenessP50S       *float64 `json:"lateness_p50_s,omitempty"`
	LatenessP99S       *float64 `json:"lateness_p99_s,omitempty"`
	ArrivalLatencyP50S *float64 `json:"arrival_latency_p50_s,omitempty"`
	ArrivalLatencyP99S *float64 `json:"arrival_latency_p99_s,omitempty"`
	// Goodput is the measured successes meeting every limit of run.json's
	// slo, per second of window_s (internal/claims.Goodput); absent
	// without an slo.
	Goodput *float64 `json:"goodput_per_s,omitempty"`
	// Whether the server kept up (internal/claims.KeepUpOf): the median
	// latency from arrival of the successes in the last third of the
	// measured requests (by planned time) over the first third's, absent
	// with fewer than 10 successes in a third; and the mean requests
	// arrived and not ended at each planned arrival, last third less
	// first. Absent in a closed loop's, and in an open loop's sealed by a
	// build that did not compute them.
	ArrivalGrowth *float64 `json:"arrival_latency_growth,omitempty"`
	BacklogGrowth *float64 `json:"backlog_growth,omitempty"`

	// Figures are the run's task's own figures (internal/task's
	// Figurer: tts's rtf_p50, first_audio_p50_s, audio_s_per_char, …),
	// by name, each written as a member of the metrics object beside the
	// core's (so tts claims sealed before the split decode into it); a
	// figure not observed is absent. In Median/Min/Max, over the repeats
	// that have it.
	Figures map[string]float64 `json:"-"`

	// WarmupPeakInFlight is the peak in-flight of the warm-up requests of
	// the level/repeat, absent when it had none.
	WarmupPeakInFlight *int `json:"warmup_peak_in_flight,omitempty"`

	// Telemetry and server counters, present when they were available.
	GPUUtilMean     *float64 `json:"gpu_util_mean,omitempty"`
	GPUUtilMax      *float64 `json:"gpu_util_max,omitempty"`
	GPUMemPeakBytes *float64 `json:"gpu_mem_peak_bytes,omitempty"`
	GPUPowerPeakW   *float64 `json:"gpu_power_peak_w,omitempty"`
	HostCPUMean     *float64 `json:"host_cpu_mean,omitempty"`
	// ClientCPUMean is benchseal's own share of the client host's CPUs
	// over the measured window (the mean proc_cpu_pct of the host
	// samples in it), beside HostCPUMean: a busy host with an idle client
	// is not a saturated client. Absent in runs made before it.
	ClientCPUMean *float64 `json:"client_cpu_mean,omitempty"`
	CacheHits     *float64 `json:"cache_hits,omitempty"`
	// CacheHitsScope is CacheHitsMeasured when cache_hits counts the
	// measured requests only (from the scrape after the warm-ups); absent,
	// cache_hits spans the whole step, warm-ups included (runs made before
	// the measure scrape, or when it failed).
	CacheHitsScope string `json:"cache_hits_scope,omitempty"`
	// CacheHitsCounter is the /metrics counter cache_hits is the growth
	// of; what one unit of it is (a whole input answered from a cache, or
	// a prompt token reused) is that counter's row in internal/engine.
	// Absent in claims sealed by a build that did not record it; in
	// Median/Min/Max, when the repeats read different counters.
	CacheHitsCounter string `json:"cache_hits_counter,omitempty"`
	// GPUPeaks are each GPU's own peaks when the target runs on several
	// (gpu_mem_peak_bytes and gpu_power_peak_w are sums over them).
	GPUPeaks []GPUPeak `json:"gpu_peaks,omitempty"`
	// TelemetryNote says why the sampled fields are absent although the
	// run was sampled ("not observed (window shorter than
	// --sample-interval)").
	TelemetryNote string `json:"telemetry_note,omitempty"`

	// Server is the server's own account of the step's measured phase, from
	// its Prometheus histograms (internal/claims, server.go); absent when
	// the server exposes none of the stage families or no scrape bracketed
	// the phase. In Median/Min/Max it is absent.
	Server *ServerStages `json:"server,omitempty"`
}

// LatencyPercentile is one asked-for latency percentile: P (0..100) and
// its value in seconds, null when no request succeeded.
type LatencyPercentile struct {
	P        float64  `json:"p"`
	LatencyS *float64 `json:"latency_s"`
}

// LatencyPercentileName names the latency percentile p (0..100) where a
// flat name is needed (compare's and replay's metric, benchseal export's
// column): latency_p<p>_s, its decimal point an underscore (99.9:
// latency_p99_9_s; 50: latency_p50_s, the fixed field's name).
func LatencyPercentileName(p float64) string {
	return "latency_p" + strings.ReplaceAll(strconv.FormatFloat(p, 'f', -1, 64), ".", "_") + "_s"
}

// ServerStages decompose a step's measured requests as the server saw
// them: each stage is the delta of one histogram family (labels summed)
// between the scrape after the warm-ups ("measure") and the one after the
// step ("after").
type ServerStages struct {
	// Scope is ServerScopeMeasured when the deltas start at the scrape
	// after the warm-ups; absent when that scrape is missing and they
	// start at the one before the step (its warm-ups included).
	Scope  string      `json:"scope,omitempty"`
	Stages []StageStat `json:"stages"`
	// Note says why a family present in both scrapes was not computed (a
	// histogram that went down: the server restarted during the step).
	Note string `json:"note,omitempty"`
}

// ServerScopeMeasured is ServerStages.Scope when the stages count the
// measured phase only.
const ServerScopeMeasured = "measured"

// Stage names of StageStat.Stage, in the order a request passes them.
const (
	StageQueue     = "queue"     // admission wait: vllm:request_queue_time_seconds, sglang:queue_time_seconds
	StagePrefill   = "prefill"   // first forward (encoder + prefill): vllm:request_prefill_time_seconds
	StageDecode    = "decode"    // decode tail: vllm:request_decode_time_seconds
	StageInference = "inference" // prefill + decode: vllm:request_inference_time_seconds
	StageTTFT      = "ttft"      // vllm:time_to_first_token_seconds
	StageE2E       = "e2e"       // server end to end: vllm:e2e_request_latency_seconds, sglang:e2e_request_latency_seconds
	StageHTTP      = "http"      // HTTP handler duration: sglang_omni_http_request_duration_seconds
)

// StageStat is one stage of ServerStages. Count is the number of
// observations the histogram gained; the mean is sum/count (exact).
// P50LeS/P95LeS are upper bounds, not estimates: the upper bound of the
// bucket that holds the median (95th percentile), so the percentile is at
// most that (null when it lies above the largest finite bucket). A
// histogram proves no more; interpolating inside the bucket, as
// histogram_quantile does, would publish a value no observation showed.
// Times are seconds, null when Count is 0.
type StageStat struct {
	Stage  string   `json:"stage"`  // a Stage* constant
	Family string   `json:"family"` // the histogram family read, e.g. "vllm:request_queue_time_seconds"
	Count  float64  `json:"count"`
	MeanS  *float64 `json:"mean_s"`
	P50LeS *float64 `json:"p50_le_s"` // the median is at most this
	P95LeS *float64 `json:"p95_le_s"` // the 95th percentile is at most this
}

// GPUPeak is one GPU's largest memory use and power draw in a window.
type GPUPeak struct {
	GPU          int      `json:"gpu"` // NVML index
	MemPeakBytes *float64 `json:"mem_peak_bytes,omitempty"`
	PowerPeakW   *float64 `json:"power_peak_w,omitempty"`
}

// CacheHitsMeasured is Metrics.CacheHitsScope when cache_hits counts the
// measured phase only.
const CacheHitsMeasured = "measured"
