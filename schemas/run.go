package schemas

import "time"

// Schema names, the value of each document's "schema" field.
const (
	RunSchema    = "benchseal.run/v1"
	ClaimsSchema = "benchseal.claims/v1"
)

// Run is run.json: everything needed to repeat and re-derive a run.
type Run struct {
	Schema    string    `json:"schema"` // RunSchema
	Tool      Tool      `json:"tool"`
	StartedAt time.Time `json:"started_at"` // RFC 3339, UTC; the anchor of every record's *_ns offsets
	EndedAt   time.Time `json:"ended_at,omitzero"`
	// Complete is false while the run is in progress and when it was
	// interrupted or crashed; Incomplete then says why.
	Complete   bool   `json:"complete"`
	Incomplete string `json:"incomplete,omitempty"`
	Seed       uint64 `json:"seed"`
	// PlanSeed is, in a pre-registered run (run --tsa), the seed plan.json
	// fixed; Seed is then TokenSeed(PlanSeed, the plan's token), drawn once
	// the authority answered and before the first request.
	PlanSeed *uint64    `json:"plan_seed,omitempty"`
	Protocol Protocol   `json:"protocol"`
	Scoring  Scoring    `json:"scoring"`
	Targets  []Target   `json:"targets"`
	Corpus   []Clip     `json:"corpus"`
	Command  []string   `json:"command,omitempty"` // the client's command line, redacted
	Notes    []string   `json:"notes,omitempty"`   // things the run noticed (a target that failed a whole level, ...)
	Events   []RunEvent `json:"events,omitempty"`
	// ReplayOf is set when benchseal replay made the run: the sealed run
	// whose protocol it re-ran.
	ReplayOf *ReplayOf `json:"replay_of,omitempty"`
}

// ReplayOf names the sealed run a replay re-ran against live servers.
type ReplayOf struct {
	Source       string `json:"source"`                  // the bundle or run directory, as given
	BundleSHA256 string `json:"bundle_sha256,omitempty"` // of the whole bundle file; "" for a run directory
	// KeyFingerprint is the key that signed the bundle ("sha256:<hex of
	// the PKIX DER>"); KeyPinned says it was given (--key), not taken
	// from the bundle itself.
	KeyFingerprint string    `json:"key_fingerprint,omitempty"`
	KeyPinned      bool      `json:"key_pinned"`
	StartedAt      time.Time `json:"started_at"` // the sealed run's started_at
	// Overrides lists what the replay changed from the sealed protocol
	// ("target a url http://...", "seed 7", "only a"), so that a reader
	// sees at once how far it is a replay.
	Overrides []string `json:"overrides,omitempty"`
	// FirstVariant is, per clip id, the variant number the replay's
	// numbering of that clip started from: a random point past the sealed
	// run's variants (absent with --seed or --same-variants).
	FirstVariant map[string]int64 `json:"first_variant,omitempty"`
}

// Tool identifies the client that produced the run.
type Tool struct {
	Name         string   `json:"name"` // "benchseal"
	Version      string   `json:"version"`
	BinarySHA256 string   `json:"binary_sha256"`
	GoVersion    string   `json:"go_version"`
	Modules      []Module `json:"modules"`
}

// Module is one module compiled into the client binary.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum,omitempty"`
}

// Protocol is the measurement protocol (docs/DESIGN.md, "Measurement protocol").
// Requests and Warmup are per level, aligned with Levels.
type Protocol struct {
	Levels      []int   `json:"levels"`   // concurrency of each level, in run order
	Requests    []int   `json:"requests"` // measured requests per level and repeat
	Passes      int     `json:"passes,omitempty"`
	Warmup      []int   `json:"warmup"` // warm-up requests per level and repeat
	Repeats     int     `json:"repeats"`
	Perturb     bool    `json:"perturb"` // false only with --no-perturb
	TimeoutS    float64 `json:"timeout_s"`
	SuccessRule string  `json:"success_rule"` // the task's rule, SuccessRule for ASR
	Stream      bool    `json:"stream"`
	TargetOrder string  `json:"target_order"` // "alternate": reversed on every other repeat

	// WarmupOnce: the warm-ups of a level were sent before its first
	// repeat only (repeats 2.. have none), the seed client's schedule.
	WarmupOnce bool `json:"warmup_once,omitempty"`

	// WarmupRetries is how many times, at most, a step whose warm-ups all
	// failed sent one of them again (the same variant, one at a time, seqs
	// after the step's measured ones, phase warmup) before its measured
	// requests; retry k sends warm-up k mod warmup. Absent (0) in runs made
	// before the runner retried.
	WarmupRetries int `json:"warmup_retries,omitempty"`

	// Task names what one request was (internal/task's registry: "asr").
	// Absent in runs made before it was recorded, which were all "asr".
	Task string `json:"task,omitempty"`

	// CacheProbe is the number of pairs of the active cache probe each
	// target was to get after the sweep (run --cache-probe; records/<t>/
	// probe-1.jsonl); absent (0) when none was asked for, and in runs made
	// before it was recorded. A verifier holds the probe records to it.
	CacheProbe int `json:"cache_probe,omitempty"`

	// Mode is ModeOpen for an open-loop run (run --request-rate); absent
	// (closed loop) otherwise, and in runs made before it was recorded.
	// In an open-loop run Levels number the levels 1..n (the records'
	// concurrency and file names are that number) and level i offers
	// RequestRates[i-1] requests per second.
	Mode         string    `json:"mode,omitempty"`
	RequestRates []float64 `json:"request_rates,omitempty"`
	// Burstiness is the schedule's gamma shape as text ("1": Poisson,
	// "inf": constant gaps; JSON has no infinity).
	Burstiness string `json:"burstiness,omitempty"`
	// MaxConcurrency bounds the requests in flight (0: none).
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// ScheduleVersion is internal/schedule's Version that derived the
	// planned offsets.
	ScheduleVersion int `json:"schedule_version,omitempty"`
	// RampUp is the open-loop warm-ups' ramp (run --ramp-up): each
	// level's warm-up phase arrives at a rate climbing from start_rps to
	// the level's rate over duration_s (internal/schedule, "The ramp"),
	// and its warm-up count is the ramp's (Warmup). Absent: warm-ups
	// arrive at the level's rate.
	RampUp *RampUp `json:"ramp_up,omitempty"`
	// FindRate is the rate search's rule (run --find-rate): the first
	// rate is start_rps, each next one follows from the levels before it
	// (internal/claims' findrate.go), RequestRates lists the rates offered
	// in run order. Absent: the rates were given.
	FindRate *FindRate `json:"find_rate,omitempty"`
	// FixedSchedule is a trace's send offsets (run --fixed-schedule):
	// the one level's measured requests are sent at them, from the
	// measured phase's start, and RequestRates holds their mean rate
	// (requests over the last offset). Absent: offsets are derived.
	FixedSchedule *FixedSchedule `json:"fixed_schedule,omitempty"`

	// SLO is the limits goodput counts against (run --slo); absent when
	// none was given.
	SLO *SLO `json:"slo,omitempty"`

	// Percentiles are the latency percentiles (0..100) run --percentiles
	// asked for, in its order: claims.json's latency_percentiles has one
	// entry per percentile, beside the fixed latency_p50/p90/p95/p99_s.
	// Absent: the fixed ones only (and runs made before it was recorded).
	Percentiles []float64 `json:"percentiles,omitempty"`

	// RoundTrip names the ASR server a tts run's produced audio was to
	// be transcribed by after the sweep (run --asr-target; roundtrip.go);
	// absent when none was asked for.
	RoundTrip *RoundTrip `json:"round_trip,omitempty"`

	// Realtime is a realtime run's streaming rule (run --task realtime:
	// internal/task's realtime.go): how each session cut its clip into
	// chunks and paced them. Absent for every other task.
	Realtime *Realtime `json:"realtime,omitempty"`
}

// Realtime is Protocol.Realtime. A session streams its clip's variant's
// PCM16 samples in chunks of ChunkMs milliseconds of audio (the last one
// shorter), chunk k planned at the session's planned start plus k ×
// ChunkMs ÷ Speed; a chunk sent more than LateMs after its planned time
// breaks the pacing (verify).
type Realtime struct {
	ChunkMs int     `json:"chunk_ms"`
	Speed   float64 `json:"speed"`
	LateMs  float64 `json:"late_ms"`
}

// SLO is the service-level limits of run --slo, in seconds; a nil limit
// is not set. Goodput counts the measured successes meeting every limit
// set: e2e (end − arrival) and ttfb (first byte − arrival), where the
// arrival is the planned send time in an open-loop run (the user's view,
// the client's queue included) and the send otherwise.
type SLO struct {
	E2ES  *float64 `json:"e2e_s,omitempty"`
	TTFBS *float64 `json:"ttfb_s,omitempty"`
}

// ModeOpen is Protocol.Mode of an open-loop run.
const ModeOpen = "open"

// SuccessRule is the ASR task's success rule: HTTP 200 and a non-empty
// scored transcript. Each task names its own rule (internal/task's
// Rule.SuccessRule); run.json records the run's task's.
const SuccessRule = "http_200_nonempty_text"

// Scoring names how transcripts were scored, so a verifier scores the same way.
type Scoring struct {
	Normalizer string `json:"normalizer"` // "whisper-en", "basic", "zh", "none"
	Aligner    string `json:"aligner"`    // "unit" or "sclite"
	Unit       string `json:"unit"`       // "word" or "char": what the error rate counts
	Failures   string `json:"failures"`   // "excluded" or "deletions"
}

// Target is one server under test.
type Target struct {
	Name          string            `json:"name"`
	URL           string            `json:"url"`
	Model         string            `json:"model"`
	RequestFields map[string]string `json:"request_fields"`           // form fields besides file and model
	LaunchCommand string            `json:"launch_command,omitempty"` // redacted
	GPUs          []int             `json:"gpus,omitempty"`
	ConfigFiles   []string          `json:"config_files,omitempty"` // run-directory paths of copied configs
	LaunchLog     string            `json:"launch_log,omitempty"`   // run-directory path
}

// Clip is one input audio file of the corpus.
type Clip struct {
	ID         string  `json:"id"`
	File       string  `json:"file"`   // run-directory path of the original bytes: inputs/<sha256>.wav
	Source     string  `json:"source"` // where it was read from, as given
	SHA256     string  `json:"sha256"` // of the original bytes
	Size       int64   `json:"size"`
	Format     string  `json:"format"` // "pcm" or "float"
	Frames     int64   `json:"frames"`
	Channels   int     `json:"channels"`
	SampleRate int     `json:"sample_rate"`
	Bits       int     `json:"bits"` // container bits per sample
	ValidBits  int     `json:"valid_bits"`
	Seconds    float64 `json:"seconds"`
	Text       string  `json:"text,omitempty"` // reference transcript
	Language   string  `json:"language,omitempty"`
	// Speak is the text a speech request speaks (tts: the item's input),
	// Voice the voice it names; "" when the item has none.
	Speak string `json:"speak,omitempty"`
	Voice string `json:"voice,omitempty"`
	// Perturb is set when nothing of the item was perturbed:
	// PerturbNoReference for a tts item without a reference clip (a named
	// voice), whose file, sha256, size, format and lengths are then empty
	// (no inputs/ file is written) and whose requests send the same body.
	Perturb string `json:"perturb,omitempty"`
	// SourceFormat and SourceSHA256 say what a decoded clip was decoded
	// from ("flac", losslessly; "mp3", once) and the SHA-256 of that
	// source (the .flac or .mp3 file, a Parquet cell's audio bytes): what
	// is sent, sealed (File, SHA256) and perturbed is the decoded WAV.
	// Absent for a WAV, sent as it is, and in runs made before they were
	// recorded.
	SourceFormat string `json:"source_format,omitempty"`
	SourceSHA256 string `json:"source_sha256,omitempty"`
}

// PerturbNoReference is a corpus entry's perturb for an item without a
// reference clip: its requests had nothing to perturb and were sent
// unchanged, so a cache keyed by the text and voice could answer them.
const PerturbNoReference = "none: no reference clip"

// NoInput says the entry has no input (PerturbNoReference): nothing was
// sent but the request's own members, nothing was perturbed.
func (c Clip) NoInput() bool { return c.Perturb == PerturbNoReference }

// EventOTLPCollected is the run event (one per target) saying that the
// target's OpenTelemetry spans were collected into servers/<t>/otlp/: a
// verifier then holds their absence as evidence removed.
const EventOTLPCollected = "otlp_collected"

// RunEvent is something that happened to the run at a time (a server that
// died, an interrupt). AtNs is an offset from StartedAt.
type RunEvent struct {
	AtNs   int64  `json:"at_ns"`
	Target string `json:"target,omitempty"`
	Kind   string `json:"kind"` // "interrupted", "server_exited", "level_all_failed", ...
	Detail string `json:"detail,omitempty"`
}

// RampUp is Protocol.RampUp.
type RampUp struct {
	Strategy  string  `json:"strategy"` // "linear" or "exponential"
	StartRPS  float64 `json:"start_rps"`
	DurationS float64 `json:"duration_s"`
}

// FindRate is Protocol.FindRate: the search's rule and, level by level
// as it went, its verdicts.
type FindRate struct {
	StartRPS  float64        `json:"start_rps"`
	Precision float64        `json:"precision"`
	MaxLevels int            `json:"max_levels"`
	Steps     []FindRateStep `json:"steps"`
}

// FindRateStep is the search's verdict on one level: its rate, whether
// it kept up and met the SLO, and if not why (the first failing repeat).
type FindRateStep struct {
	Rate float64 `json:"rate"`
	Pass bool    `json:"pass"`
	Why  string  `json:"why,omitempty"`
}

// FixedSchedule is Protocol.FixedSchedule: the trace file's SHA-256 and
// its offsets in nanoseconds, in send order.
type FixedSchedule struct {
	SourceSHA256 string  `json:"source_sha256"`
	OffsetsNs    []int64 `json:"offsets_ns"`
}
