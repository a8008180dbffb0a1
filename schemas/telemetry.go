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
	// ProcCPUNs is benchseal's own process CPU time so far (user +
	// system, getrusage RUSAGE_SELF), in ns: the client's own share of
	// the host's CPU, beside CPUPct. Absent in runs made before it and
	// where getrusage is not available.
	ProcCPUNs *int64 `json:"proc_cpu_ns,omitempty"`
	// ProcCPUPct is that process's share of all CPUs (0-100) since the
	// previous sample, as CPUPct is the host's; absent in the first sample
	// and where ProcCPUNs is.
	ProcCPUPct *float64 `json:"proc_cpu_pct,omitempty"`
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

// StepTelemetry is one line of telemetry/steps.jsonl: the raw facts of one
// target at one level/repeat, written by internal/fingerprint's Recorder.
// It holds no summary: internal/claims computes the telemetry and cache
// figures of claims.json from these lines and the samples of gpu.jsonl and
// host.jsonl, and a verifier recomputes them the same way.
type StepTelemetry struct {
	Target      string `json:"target"`
	Concurrency int    `json:"concurrency"`
	Repeat      int    `json:"repeat"`
	// Attempt is the step's measurement this line is of (absent: 1), and
	// Discarded says the runner measured the step again after it
	// (internal/bench: its stalls broke the stall rule); the kept,
	// last, attempt's line has no Discarded. A discarded attempt's
	// records are AttemptRecordsPath's, its scrapes AttemptMetricsPath's.
	Attempt   int   `json:"attempt,omitempty"`
	Discarded bool  `json:"discarded,omitempty"`
	StartNs   int64 `json:"start_ns"`
	EndNs     int64 `json:"end_ns"`
	GPUs      []int `json:"gpus"` // NVML indices the target runs on
	// CacheBefore and CacheAfter are the known cache counters
	// (engine.CacheCounterNames, each summed over its label sets) of the /metrics
	// scrapes before and after the step; absent when a scrape failed.
	CacheBefore map[string]float64 `json:"cache_before,omitempty"`
	CacheAfter  map[string]float64 `json:"cache_after,omitempty"`
	// CacheMeasure are the same counters scraped after the step's
	// warm-ups, just before its first measured request
	// (c<C>-r<R>-measure.prom): cache_hits counts from here, so it covers
	// the measured requests only. Absent in runs made before it existed
	// and when that scrape failed.
	CacheMeasure map[string]float64 `json:"cache_measure,omitempty"`
	Notes        []string           `json:"notes,omitempty"` // why a fact is missing
	// ScrapeErrors holds, by "before", "measure" or "after", why the step's /metrics
	// scrape failed (redacted); absent when both answered. A scrape that
	// failed this way may have left no servers/<t>/metrics/ file; one
	// missing without an entry here was removed after the run.
	ScrapeErrors map[string]string `json:"scrape_errors,omitempty"`
	// SampleStartNs and SampleEndNs are the t_ns of the samples taken
	// just before the first measured request was sent and just after the
	// last one ended: internal/claims counts them in the window.
	SampleStartNs *int64 `json:"sample_start_ns,omitempty"`
	SampleEndNs   *int64 `json:"sample_end_ns,omitempty"`
	// Settle holds, by "measure" or "after", how the recorder waited for
	// the server to count the requests the phase before that scrape
	// answered (internal/fingerprint's Recorder: engines observe their
	// counters just after the answer leaves). Absent for a scrape it did
	// not wait for: no request counter exposed, nothing answered, or a
	// run made before it existed.
	Settle map[string]ScrapeSettle `json:"settle,omitempty"`
	// Scrapes holds, by "before", "measure" or "after", when each of the
	// step's /metrics scrapes started and how long it took, its settle
	// included (a settle starts with its scrape's first GET; its own wait
	// is Settle's waited_ns), on the records' clock (ns since the run's
	// anchor). verify bounds the time between consecutive steps by them.
	// Absent in runs made before it existed.
	Scrapes map[string]ScrapeTime `json:"scrapes,omitempty"`
}

// ScrapeTime is when one /metrics scrape of the recorder started and how
// long it took, from its first GET to the kept answer written to disk.
type ScrapeTime struct {
	StartNs int64 `json:"start_ns"`
	DurNs   int64 `json:"dur_ns"`
}

// End is when the scrape ended.
func (s ScrapeTime) End() int64 { return s.StartNs + s.DurNs }

// ScrapeSettle is how the recorder waited before keeping one scrape of a
// step: it scraped /metrics until the engine's request counter had grown
// by Want since the step's previous scrape, or until its bound passed.
type ScrapeSettle struct {
	// Want is the number of requests the phase answered successfully:
	// the growth the counter had to show.
	Want int `json:"want"`
	// Counted is the growth the kept scrape shows.
	Counted float64 `json:"counted"`
	// WaitedNs is the time from the first scrape to the kept one.
	WaitedNs int64 `json:"waited_ns"`
	// Scrapes is how many scrapes it took (1: the first one had them all).
	Scrapes int `json:"scrapes"`
	// Met is false when the bound passed before the counter grew by Want.
	Met bool `json:"met"`
}

// ProbeTelemetry is one line of telemetry/cache-probes.jsonl: the raw cache
// counters of one target's active cache probe (records/<t>/probe-<n>.jsonl),
// read from the /metrics scrapes just before its first request and just
// after its last (servers/<t>/metrics/probe-<n>-{before,after}.prom),
// written by internal/fingerprint's Recorder. internal/claims computes the
// probe's counter_growth from it, and a verifier the same way.
type ProbeTelemetry struct {
	Target string `json:"target"`
	Probe  int    `json:"probe"` // n of probe-<n>.jsonl
	// CacheBefore and CacheAfter are the known cache counters
	// (engine.CacheCounterNames, each summed over its label sets) of the
	// scrapes; absent when a scrape failed.
	CacheBefore map[string]float64 `json:"cache_before,omitempty"`
	CacheAfter  map[string]float64 `json:"cache_after,omitempty"`
	// ScrapeErrors holds, by "before" or "after", why a scrape failed
	// (redacted).
	ScrapeErrors map[string]string `json:"scrape_errors,omitempty"`
	// Scrapes holds, by "before" or "after", when each scrape started and
	// how long it took (as StepTelemetry's); absent in runs made before
	// it existed.
	Scrapes map[string]ScrapeTime `json:"scrapes,omitempty"`
}
