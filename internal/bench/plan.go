package bench

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Target is one server under test.
type Target struct {
	Name   string            // label, also the records/<name>/ folder
	URL    string            // base URL: requests go to URL + the task's Path (ASR: "/v1/audio/transcriptions")
	Model  string            // empty: the one model the server lists in /v1/models
	Fields map[string]string // the task's request fields besides its input, model and stream (ASR: language, response_format, ...)
}

// Plan is what to measure: the protocol of docs/DESIGN.md, "Measurement protocol".
type Plan struct {
	Targets []Target
	Corpus  []Clip
	Levels  []int // concurrency of each level, in run order
	// Requests holds the measured requests of each level and repeat: one
	// value for every level, or one per level.
	Requests  []int
	Passes    int   // recorded when Requests came from passes over the corpus
	Warmup    []int // per level like Requests; nil: one per worker (the level's concurrency)
	Repeats   int   // 0: DefaultRepeats
	Seed      uint64
	NoPerturb bool // send the clips unchanged (to demonstrate caches); recorded
	// FirstVariant numbers each clip's variants (by the clip's SHA-256) from
	// this value instead of 0. A replay under the sealed run's seed starts
	// past every variant that run sent, so it sends none of them again: the
	// plan is a permutation, so numbers never used give indices never used.
	FirstVariant map[[32]byte]int64
	Stream       bool // ask for a stream: first_byte_ns is its first output (ASR: the first text delta over SSE)
	Scoring      schemas.Scoring
	Command      []string // the client's command line, already redacted

	// WarmupOnce sends a level's warm-ups before its first repeat only
	// (the SGLang-Omni seed client's schedule: one discarded pass, then
	// the repeats back to back); recorded in run.json.
	WarmupOnce bool

	// CacheProbe is the number of pairs of the active cache probe each
	// target gets after the sweep (claims.ProbePairs by default in run);
	// 0: none. See probe.go.
	CacheProbe int

	// Task is what one request is (internal/task); nil is
	// task.Named(""), the registry's default.
	Task task.Task

	// Rates makes the run open-loop (openloop.go): one level per offered
	// rate, in requests per second, in run order; Levels must then be
	// empty (normalize numbers the levels 1..n). Burstiness is the
	// schedule's gamma shape (0: 1, Poisson; math.Inf(1): constant gaps);
	// MaxConcurrency bounds the requests in flight (0: none).
	Rates          []float64
	Burstiness     float64
	MaxConcurrency int
	// Ramp, when set (open loop only), is each level's warm-up ramp:
	// the warm-ups arrive at a rate climbing from Ramp.Start to the
	// level's over Ramp.Duration, as many as the ramp expects
	// (schedule.Ramp.Requests); Warmup must then be nil.
	Ramp *schedule.Ramp
	// Search, when set, makes the open loop a rate search (run
	// --find-rate, internal/claims' findrate.go): Rates holds its start
	// alone, one target, an SLO and one request count; each next level's
	// rate follows from the records of the levels before it, and
	// run.json lists the rates offered as it goes.
	Search *claims.RateSearch
	// Fixed, when set, is the one open-loop level's measured send offsets
	// (run --fixed-schedule): Rates holds their mean rate
	// (schedule.FixedRate), Requests their count; FixedSHA256 is the
	// trace file's, for run.json. The warm-ups keep the level's derived
	// schedule.
	Fixed       []time.Duration
	FixedSHA256 string

	// SLO is the limits claims' goodput counts against (run --slo);
	// recorded in run.json. nil: no goodput.
	SLO *schemas.SLO

	// Percentiles are the latency percentiles (0..100) claims publish
	// beside the fixed ones (run --percentiles); recorded in run.json's
	// protocol.percentiles. nil: the fixed ones only.
	Percentiles []float64

	// Realtime is the streaming rule of a task whose requests are
	// sessions (task.Sessioner: realtime), sealed as run.json's
	// protocol.realtime; nil: task.DefaultRealtimeRule.
	Realtime *schemas.Realtime
}

// Open says whether the plan is open-loop.
func (p Plan) Open() bool { return len(p.Rates) > 0 }

// DefaultRepeats is the number of repeats of every level and target.
const DefaultRepeats = 3

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// PlanError is a plan that cannot be run.
type PlanError struct{ Reason string }

func (e *PlanError) Error() string { return "invalid plan: " + e.Reason }

func planErrorf(format string, args ...any) error {
	return &PlanError{fmt.Sprintf(format, args...)}
}

// normalize checks p and fills in defaults, returning per-level slices.
func (p Plan) normalize() (Plan, error) {
	if len(p.Targets) == 0 {
		return p, planErrorf("no target")
	}
	if p.Task == nil {
		t, err := task.Named("")
		if err != nil {
			return p, planErrorf("%v", err)
		}
		p.Task = t
	}
	seen := map[string]bool{}
	for _, t := range p.Targets {
		if !nameRE.MatchString(t.Name) {
			return p, planErrorf("target name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", t.Name)
		}
		if seen[t.Name] {
			return p, planErrorf("target %q is given twice", t.Name)
		}
		seen[t.Name] = true
	}
	if len(p.Corpus) == 0 {
		return p, planErrorf("the corpus is empty")
	}
	if p.CacheProbe > 0 && p.Corpus[0].NoInput() {
		return p, planErrorf("the cache probe sends the first item's reference clip, identical and as variants; item %q has no reference clip (a named voice): put an item with ref_audio first, or make no probe (--no-cache-probe)", p.Corpus[0].ID)
	}
	if p.Open() {
		if len(p.Levels) > 0 {
			return p, planErrorf("give request rates or concurrency levels, not both")
		}
		if err := p.normalizeOpen(); err != nil {
			return p, err
		}
		p.Levels = make([]int, len(p.Rates))
		for i := range p.Levels {
			p.Levels[i] = i + 1
		}
		switch {
		case p.Ramp != nil && p.Warmup != nil:
			return p, planErrorf("a warm-up ramp sets the warm-ups (the arrivals it expects): give no warm-up count with it")
		case p.Ramp != nil:
			for _, r := range p.Rates {
				if err := p.Ramp.Check(r); err != nil {
					return p, planErrorf("%v", err)
				}
				p.Warmup = append(p.Warmup, p.Ramp.Requests(r))
			}
		case p.Warmup == nil:
			p.Warmup = slices.Repeat([]int{max(1, p.MaxConcurrency)}, len(p.Rates))
		}
		if p.Burstiness == 0 {
			p.Burstiness = 1
		}
		if err := p.normalizeSearch(); err != nil {
			return p, err
		}
		if err := p.normalizeFixed(); err != nil {
			return p, err
		}
	} else if p.MaxConcurrency != 0 || p.Burstiness != 0 || p.Ramp != nil || p.Search != nil || p.Fixed != nil {
		return p, planErrorf("--max-concurrency, --burstiness and --ramp-up need --request-rate")
	}
	if len(p.Levels) == 0 {
		return p, planErrorf("no concurrency level")
	}
	lv := map[int]bool{}
	for _, c := range p.Levels {
		if c < 1 {
			return p, planErrorf("concurrency %d: must be at least 1", c)
		}
		if lv[c] {
			return p, planErrorf("concurrency %d is listed twice", c)
		}
		lv[c] = true
	}
	var err error
	if p.Requests, err = perLevel("requests", p.Requests, len(p.Levels), 1); err != nil {
		return p, err
	}
	if p.Warmup == nil {
		p.Warmup = slices.Clone(p.Levels)
	} else if p.Warmup, err = perLevel("warmup", p.Warmup, len(p.Levels), 0); err != nil {
		return p, err
	}
	if p.Repeats == 0 {
		p.Repeats = DefaultRepeats
	}
	if p.Repeats < 1 {
		return p, planErrorf("repeats %d: must be at least 1", p.Repeats)
	}
	if p.Scoring.Normalizer == "" {
		p.Scoring = schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"}
	}
	return p, nil
}

// warmupAt is the number of warm-ups of level li in a repeat (1-based).
func (p Plan) warmupAt(li, repeat int) int {
	if p.WarmupOnce && repeat > 1 {
		return 0
	}
	return p.Warmup[li]
}

func perLevel(what string, v []int, levels, minimum int) ([]int, error) {
	switch len(v) {
	case 0:
		return nil, planErrorf("no %s count", what)
	case 1:
		v = slices.Repeat(v[:1:1], levels)
	case levels:
		v = slices.Clone(v)
	default:
		return nil, planErrorf("%d %s counts for %d levels: give one, or one per level", len(v), what, levels)
	}
	for _, n := range v {
		if n < minimum {
			return nil, planErrorf("%s %d: must be at least %d", what, n, minimum)
		}
	}
	return v, nil
}

// sizes are the sweep's steps in schedule order, each with its
// concurrency and requests, warm-ups included.
func (p Plan) sizes() []StepSize {
	p = p.searchCapacity()
	var out []StepSize
	for li, c := range p.Levels {
		for rep := 1; rep <= p.Repeats; rep++ {
			for range p.Targets {
				out = append(out, StepSize{Concurrency: c, Requests: p.warmupAt(li, rep) + p.Requests[li]})
			}
		}
	}
	return out
}

// Options.

// DefaultTimeout bounds one request, from sending to the last byte.
const DefaultTimeout = 5 * time.Minute

type config struct {
	timeout  time.Duration
	apiKey   string
	progress Progress
	hooks    []Hooks
	tool     schemas.Tool
	client   func(Target, int) *http.Client
	stops    map[string]targetStop

	unlistedModel bool         // WithUnlistedModel
	answers       func(Answer) // WithAnswers
	stallHook     StallHook    // WithStallHook
}

// Option configures Run.
type Option func(*config)

// WithTimeout bounds every request (default DefaultTimeout). On the first
// Ctrl-C, in-flight requests get at most this long to finish.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithAPIKey sends "Authorization: Bearer key" with every request. The key
// is never written anywhere.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithProgress reports progress and warnings to p (default: none).
func WithProgress(p Progress) Option { return func(c *config) { c.progress = p } }

// WithHooks adds hooks; several are called in the order given.
func WithHooks(h Hooks) Option { return func(c *config) { c.hooks = append(c.hooks, h) } }

// WithTool records the client's identity in run.json (see
// fingerprint.Tool); default: name "benchseal", version "devel".
func WithTool(t schemas.Tool) Option { return func(c *config) { c.tool = t } }

// Discard is a Progress that shows nothing.
var Discard Progress = discard{}

type discard struct{}

func (discard) Warnf(string, ...any) {}
func (discard) Sweep([]StepSize)     {}
func (discard) Begin(Step, int, int) {}
func (discard) Done(*schemas.Record) {}
func (discard) End(StepResult)       {}

// NewSeed is a fresh random seed for a run's variants (crypto/rand), below
// 2^53 so that every JSON reader reads run.json's seed exactly. Two runs
// with fresh seeds send different variants, except by chance: with n
// variants of a clip per run out of its N samples, about n*n/N of them
// are common to both (perturb's doc, "Across runs").
func NewSeed() (uint64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("random seed: %w", err)
	}
	return binary.LittleEndian.Uint64(b[:]) >> 11, nil
}
