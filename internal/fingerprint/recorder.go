package fingerprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// Endpoint is a target as the Recorder reaches it.
type Endpoint struct {
	URL    string
	Header http.Header // sent (API key), never written
	GPUs   []int       // NVML indices it runs on (--gpu NAME=0,1)
}

// RecorderConfig configures a Recorder.
type RecorderConfig struct {
	Args           []string // the client's command line, redacted before writing
	RedactHost     bool
	SampleInterval time.Duration
	Targets        map[string]Endpoint
	Client         *http.Client // nil: a client with a 30 s timeout
	// SettleBound is how long a scrape after a phase waits at most for
	// the server to count its requests (Expect); 0: DefaultSettleBound,
	// negative: never waits.
	SettleBound time.Duration
}

// Recorder writes everything this package owns into a run directory, at
// the moments a runner calls it: BeforeSweep (env/, probes before, samplers
// on), StepStart, MeasureStart and StepEnd (/metrics before, after the
// warm-ups and after, a
// sample at each edge of the measured window, one line of
// telemetry/steps.jsonl), AfterSweep (probes after, samplers off). It never
// overwrites a file. Calls come one at a time from the runner.
type Recorder struct {
	cfg     RecorderConfig
	dir     string
	sampler *Sampler
	files   []*os.File
	steps   *json.Encoder
	before  map[string]map[string]float64 // target -> cache counters at step start
	// beforeErr and measureErr are why the scrape at step start, or after
	// the warm-ups, failed, by target.
	beforeErr, measureErr map[string]error
	measure               map[string]map[string]float64 // target -> cache counters after the warm-ups
	// measureAt is the t_ns of the sample MeasureStart took for the step
	// in progress; nil until it is called.
	measureAt *int64
	// probes encodes telemetry/cache-probes.jsonl, created at the first
	// ProbeEnd; probeBefore and probeErr are ProbeStart's scrape.
	probes        *json.Encoder
	probeBefore   map[string]float64
	probeErr      error
	probeBeforeAt schemas.ScrapeTime
	// answered are the requests Expect reported since the target's last
	// kept scrape; counted is what that scrape's request counters read;
	// settle is how the step's scrapes so far waited.
	answered map[string]int
	counted  map[string]map[string]float64
	settle   map[string]map[string]schemas.ScrapeSettle
	// anchor is the run's start (the records' clock); scrapes are the
	// times of the step's or probe's scrapes so far, by when.
	anchor  time.Time
	scrapes map[string]map[string]schemas.ScrapeTime
}

// NewRecorder returns a Recorder; nothing happens until BeforeSweep.
func NewRecorder(cfg RecorderConfig) *Recorder {
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.SettleBound == 0 {
		cfg.SettleBound = DefaultSettleBound
	}
	return &Recorder{cfg: cfg, before: map[string]map[string]float64{}, beforeErr: map[string]error{}, measureErr: map[string]error{}, measure: map[string]map[string]float64{},
		answered: map[string]int{}, counted: map[string]map[string]float64{}, settle: map[string]map[string]schemas.ScrapeSettle{},
		scrapes: map[string]map[string]schemas.ScrapeTime{}}
}

func createNew(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func writeNewFile(path string, b []byte) error {
	f, err := createNew(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeNewFile(path, append(b, '\n'))
}

// BeforeSweep writes env/client.json, host.json, gpu.json and each target's
// servers/<t>/probes-before.json, and starts sampling into telemetry/.
func (r *Recorder) BeforeSweep(ctx context.Context, dir string, anchor time.Time) error {
	r.dir, r.anchor = dir, anchor
	env := filepath.Join(dir, "env")
	for name, v := range map[string]any{"client.json": Client(r.cfg.Args), "host.json": Host(r.cfg.RedactHost), "gpu.json": GPU()} {
		if err := writeJSON(filepath.Join(env, name), v); err != nil {
			return fmt.Errorf("write env/%s: %w", name, err)
		}
	}
	for name, t := range r.cfg.Targets {
		c := Capture(ctx, r.cfg.Client, name, t.URL, t.Header, "before")
		if err := writeJSON(filepath.Join(dir, filepath.FromSlash(schemas.ServerPath(name, schemas.ProbesBeforeFile))), c); err != nil {
			return fmt.Errorf("write probes of %s: %w", name, err)
		}
	}
	var gpus []int
	seen := map[int]bool{}
	for _, t := range r.cfg.Targets {
		for _, g := range t.GPUs {
			if !seen[g] {
				seen[g] = true
				gpus = append(gpus, g)
			}
		}
	}
	cfg := SamplerConfig{Interval: r.cfg.SampleInterval, Anchor: anchor, GPUs: gpus}
	var err error
	var files [3]*os.File
	for i, name := range []string{"host.jsonl", "gpu.jsonl", "steps.jsonl"} {
		if files[i], err = createNew(filepath.Join(dir, "telemetry", name)); err != nil {
			r.closeFiles()
			return fmt.Errorf("create telemetry/%s: %w", name, err)
		}
		r.files = append(r.files, files[i])
	}
	cfg.Host, cfg.GPU = files[0], files[1]
	r.steps = json.NewEncoder(files[2])
	r.sampler = StartSampler(ctx, cfg)
	return nil
}

// StepStart scrapes the target's /metrics (kept as
// servers/<t>/metrics/c<C>-r<R>-before.prom) and takes a sample.
func (r *Recorder) StepStart(ctx context.Context, target string, concurrency, repeat int) error {
	r.sampler.Sample()
	r.measureAt = nil
	delete(r.measure, target)
	delete(r.settle, target)
	delete(r.scrapes, target)
	c, err := r.scrape(ctx, target, concurrency, repeat, "before")
	r.before[target], r.beforeErr[target] = c, err
	return err
}

// MeasureStart takes a sample just before a step's first measured request
// (after its warm-ups): the start edge of the measured window, whose t_ns
// StepEnd writes as sample_start_ns. It also scrapes the target's /metrics
// (kept as c<C>-r<R>-measure.prom), whose cache counters StepEnd writes as
// cache_measure: claims count cache hits of the measured requests from
// there.
func (r *Recorder) MeasureStart(ctx context.Context, target string, concurrency, repeat int) error {
	t := r.sampler.Sample()
	r.measureAt = &t
	c, err := r.scrape(ctx, target, concurrency, repeat, "measure")
	r.measure[target], r.measureErr[target] = c, err
	return err
}

// StepEnd takes a sample (the window's end edge, sample_end_ns), scrapes /metrics again (kept as
// c<C>-r<R>-after.prom) and appends the step's raw facts to
// telemetry/steps.jsonl, which it also returns: its window, its GPUs and
// the cache counters before and after. It computes nothing from them:
// internal/claims derives the telemetry and cache figures of claims.json
// from these lines and the samples, so there is one implementation, the
// one a verifier reruns.
func (r *Recorder) StepEnd(ctx context.Context, target string, concurrency, repeat int, startNs, endNs int64) (schemas.StepTelemetry, error) {
	return r.StepEndAttempt(ctx, target, concurrency, repeat, 1, false, startNs, endNs)
}

// StepEndAttempt is StepEnd of a step's attempt (from 1; internal/bench
// measures a step again when its closed loop stalled): the line says
// attempt (when above 1) and discarded. A discarded attempt's scrapes,
// those of StepStart and MeasureStart included, are kept under
// schemas.AttemptMetricsPath instead (moved there, never overwritten),
// so the step's own names hold its kept attempt's.
func (r *Recorder) StepEndAttempt(ctx context.Context, target string, concurrency, repeat, attempt int, discarded bool, startNs, endNs int64) (schemas.StepTelemetry, error) {
	end := r.sampler.Sample()
	st := schemas.StepTelemetry{Target: target, Concurrency: concurrency, Repeat: repeat, StartNs: startNs, EndNs: endNs,
		GPUs: r.cfg.Targets[target].GPUs, SampleStartNs: r.measureAt, SampleEndNs: &end, Discarded: discarded}
	if attempt > 1 {
		st.Attempt = attempt
	}
	r.measureAt = nil
	var moveErr error
	if discarded {
		st.Attempt = attempt
		for _, when := range []string{"before", "measure"} {
			from := filepath.Join(r.dir, filepath.FromSlash(schemas.MetricsPath(target, concurrency, repeat, when)))
			to := filepath.Join(r.dir, filepath.FromSlash(schemas.AttemptMetricsPath(target, concurrency, repeat, attempt, when)))
			if _, err := os.Stat(from); err == nil {
				moveErr = errors.Join(moveErr, moveNew(from, to))
			}
		}
	}
	name := schemas.MetricsPath(target, concurrency, repeat, "after")
	if discarded {
		name = schemas.AttemptMetricsPath(target, concurrency, repeat, attempt, "after")
	}
	start := time.Now()
	after, scrapeErr := r.scrapeTo(ctx, target, name, "after")
	if r.scrapes[target] == nil {
		r.scrapes[target] = map[string]schemas.ScrapeTime{}
	}
	r.scrapes[target]["after"] = r.since(start)
	st.CacheBefore, st.CacheAfter, st.CacheMeasure = r.before[target], after, r.measure[target]
	st.Settle, st.Scrapes = r.settle[target], r.scrapes[target]
	delete(r.measure, target)
	delete(r.settle, target)
	delete(r.scrapes, target)
	defer delete(r.measureErr, target)
	for when, err := range map[string]error{"before": r.beforeErr[target], "measure": r.measureErr[target], "after": scrapeErr} {
		if err != nil {
			if st.ScrapeErrors == nil {
				st.ScrapeErrors = map[string]string{}
			}
			st.ScrapeErrors[when] = Redact(err.Error())
		}
	}
	if st.CacheBefore == nil || st.CacheAfter == nil {
		st.Notes = append(st.Notes, "cache counters: /metrics not scraped before and after")
	}
	if gErr := r.sampler.GPUError(); gErr != nil && len(st.GPUs) > 0 {
		st.Notes = append(st.Notes, "gpu telemetry: "+gErr.Error())
	}
	if err := r.steps.Encode(st); err != nil {
		return st, fmt.Errorf("write telemetry/steps.jsonl: %w", err)
	}
	return st, errors.Join(scrapeErr, moveErr)
}

// moveNew moves from to to, a new name (the link fails when to exists).
func moveNew(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.Link(from, to); err != nil {
		return err
	}
	return os.Remove(from)
}

func (r *Recorder) scrape(ctx context.Context, target string, concurrency, repeat int, when string) (map[string]float64, error) {
	start := time.Now()
	c, err := r.scrapeTo(ctx, target, schemas.MetricsPath(target, concurrency, repeat, when), when)
	if r.scrapes[target] == nil {
		r.scrapes[target] = map[string]schemas.ScrapeTime{}
	}
	r.scrapes[target][when] = r.since(start)
	return c, err
}

// since is the scrape that started at start and ends now, on the records'
// clock (ns since the run's anchor), its settle and file included: what
// verify bounds the time between steps by.
func (r *Recorder) since(start time.Time) schemas.ScrapeTime {
	return schemas.ScrapeTime{StartNs: start.Sub(r.anchor).Nanoseconds(), DurNs: time.Since(start).Nanoseconds()}
}

// Expect tells the recorder that n more requests to target were answered
// successfully since its last scrape of the step (the runner's hooks: the
// warm-ups before MeasureStart, the measured requests before StepEnd).
// The next such scrape waits until the server counts them (settle).
func (r *Recorder) Expect(target string, n int) { r.answered[target] += n }

// scrapeTo scrapes target's /metrics, keeps the raw answer as name (a
// run-directory path) and returns its cache counters. For a step's
// "measure" and "after" scrapes it first waits (settle) for the server
// to count what Expect reported, and notes how in the step's line.
func (r *Recorder) scrapeTo(ctx context.Context, target, name, when string) (map[string]float64, error) {
	t, ok := r.cfg.Targets[target]
	if !ok {
		return nil, fmt.Errorf("unknown target %q", target)
	}
	raw, fams, err := scrapeFamilies(ctx, r.cfg.Client, t)
	if err == nil && (when == "measure" || when == "after") {
		var st *schemas.ScrapeSettle
		raw, fams, st = r.settleScrape(ctx, t, r.answered[target], r.counted[target], raw, fams)
		if st != nil {
			if r.settle[target] == nil {
				r.settle[target] = map[string]schemas.ScrapeSettle{}
			}
			r.settle[target][when] = *st
		}
	}
	if when != "" {
		// The step's next scrape counts from this one (or, when it
		// failed, from nothing: no wait).
		r.answered[target] = 0
		r.counted[target] = nil
		if fams != nil {
			r.counted[target] = RequestCounts(fams)
		}
	}
	if raw != nil {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if werr := writeNewFile(p, raw); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	if fams == nil {
		return nil, err
	}
	return CacheCounters(fams), err
}

// ProbeStart scrapes the target's /metrics just before its active cache
// probe (kept as servers/<t>/metrics/probe-1-before.prom).
func (r *Recorder) ProbeStart(ctx context.Context, target string) error {
	start := time.Now()
	r.probeBefore, r.probeErr = r.scrapeTo(ctx, target, schemas.ProbeMetricsPath(target, 1, "before"), "")
	r.probeBeforeAt = r.since(start)
	return r.probeErr
}

// ProbeEnd scrapes /metrics again just after the probe's last request
// (probe-1-after.prom) and appends the probe's cache counters, raw, to
// telemetry/cache-probes.jsonl: internal/claims computes their growth.
func (r *Recorder) ProbeEnd(ctx context.Context, target string) error {
	start := time.Now()
	after, err := r.scrapeTo(ctx, target, schemas.ProbeMetricsPath(target, 1, "after"), "")
	line := schemas.ProbeTelemetry{Target: target, Probe: 1, CacheBefore: r.probeBefore, CacheAfter: after,
		Scrapes: map[string]schemas.ScrapeTime{"before": r.probeBeforeAt, "after": r.since(start)}}
	for when, e := range map[string]error{"before": r.probeErr, "after": err} {
		if e != nil {
			if line.ScrapeErrors == nil {
				line.ScrapeErrors = map[string]string{}
			}
			line.ScrapeErrors[when] = Redact(e.Error())
		}
	}
	r.probeBefore, r.probeErr = nil, nil
	if r.probes == nil {
		f, cerr := createNew(filepath.Join(r.dir, filepath.FromSlash(schemas.CacheProbesFile)))
		if cerr != nil {
			return fmt.Errorf("create %s: %w", schemas.CacheProbesFile, cerr)
		}
		r.files = append(r.files, f)
		r.probes = json.NewEncoder(f)
	}
	if werr := r.probes.Encode(line); werr != nil {
		return fmt.Errorf("write %s: %w", schemas.CacheProbesFile, werr)
	}
	return err
}

// AfterSweep writes servers/<t>/probes-after.json and stops the samplers.
func (r *Recorder) AfterSweep(ctx context.Context) error {
	var errs []error
	for name, t := range r.cfg.Targets {
		c := Capture(ctx, r.cfg.Client, name, t.URL, t.Header, "after")
		if err := writeJSON(filepath.Join(r.dir, "servers", name, "probes-after.json"), c); err != nil {
			errs = append(errs, fmt.Errorf("write probes of %s: %w", name, err))
		}
	}
	if r.sampler != nil {
		errs = append(errs, r.sampler.Stop())
	}
	errs = append(errs, r.closeFiles())
	return errors.Join(errs...)
}

// Abort stops the samplers and closes telemetry/ of a run aborted before
// its first request (its directory is removed: nothing more is written).
func (r *Recorder) Abort() {
	if r.sampler != nil {
		r.sampler.Stop()
		r.sampler = nil
	}
	r.closeFiles()
}

func (r *Recorder) closeFiles() error {
	var errs []error
	for _, f := range r.files {
		errs = append(errs, f.Close())
	}
	r.files = nil
	return errors.Join(errs...)
}
