package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/par"
	"github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// ErrInterrupted is returned, with the Result of what was measured, when
// the context was cancelled during the sweep (the first Ctrl-C).
var ErrInterrupted = errors.New("run interrupted")

// OutExistsError refuses to write into an existing run directory:
// evidence is never overwritten.
type OutExistsError struct{ Path string }

func (e *OutExistsError) Error() string {
	return fmt.Sprintf("%s already exists; evidence is never overwritten", e.Path)
}

// VariantBudgetError says a clip is too short for the number of distinct
// variants the run needs (one per request that sends it).
type VariantBudgetError struct {
	Clip    string
	Samples int64
	Needed  int64
}

func (e *VariantBudgetError) Error() string {
	return fmt.Sprintf("clip %q has %d samples but the run sends it %d times, each needing its own sample", e.Clip, e.Samples, e.Needed)
}

// Result is what a run produced.
type Result struct {
	Dir    string
	Run    schemas.Run
	Claims schemas.Claims
	Steps  []StepResult // the kept attempt of each step measured
	// Discarded are the attempts measured again (attempt.go): their
	// stalls broke the stall rule.
	Discarded []StepResult
	// Stalled are the steps whose last attempt still breaks the stall
	// rule: verify's check 7 will FAIL them.
	Stalled []StepResult
}

const preflightTimeout = 10 * time.Second

// IncompleteEnded is run.json's "incomplete" while the sweep runs: what a
// run directory says when the process ended before the sweep did.
const IncompleteEnded = "ended during the sweep (the process exited before the run finished)"

// AfterStepTimeout bounds the AfterStep hooks of a step (probes and
// /metrics scrapes), which run even after an interrupt.
const AfterStepTimeout = 10 * time.Second

// Run measures plan and writes the run directory dir (docs/bundle.md): it
// refuses an existing dir, checks every target answers before creating
// anything, then sweeps level -> repeat -> target (target order reversed on
// even repeats), writing each request's record as it ends. When ctx is
// cancelled no new request starts, in-flight ones finish (within the
// timeout), and Run writes what it has and returns the Result with
// ErrInterrupted.
func Run(ctx context.Context, dir string, plan Plan, opts ...Option) (*Result, error) {
	cfg := config{timeout: DefaultTimeout, progress: Discard,
		tool: schemas.Tool{Name: "benchseal", Version: "devel", Modules: []schemas.Module{}}}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := plan.normalize()
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, &OutExistsError{dir}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := checkBudget(p); err != nil {
		return nil, err
	}
	if p.Targets, err = preflight(ctx, &cfg, p.Task.Name(), p.Targets, p.Corpus, p.Stream); err != nil {
		return nil, err
	}
	r, err := newRunner(p, &cfg, dir)
	if err != nil {
		return nil, err
	}
	if err := r.create(); err != nil {
		r.unmake()
		return nil, err
	}
	return r.sweep(ctx)
}

// unmake removes what create made, for a run that failed before its
// first request (create, a BeforeSweep hook: a time-stamping authority
// that does not answer): the directory holds no record, nothing measured
// is lost, and the same command can run again instead of failing on
// "must not exist".
func (r *runner) unmake() {
	if r.created != "" {
		os.RemoveAll(r.created)
	}
}

// checkBudget makes sure no clip needs more variants than it has samples
// (an item without input needs none: it is sent unchanged).
func checkBudget(p Plan) error {
	if p.NoPerturb {
		return nil
	}
	need := variantsNeeded(p)
	for _, c := range p.Corpus {
		if c.NoInput() {
			continue
		}
		if n := need[c.SHA256] + p.FirstVariant[c.SHA256]; n > c.WAV.Samples() {
			return &VariantBudgetError{c.ID, c.WAV.Samples(), n}
		}
	}
	return nil
}

// VariantsNeeded is how many variants of each clip (by SHA-256) the plan
// sends, warm-ups included: the length of each clip's variant numbering
// from its FirstVariant. A plan that cannot run is its *PlanError.
func VariantsNeeded(p Plan) (map[[32]byte]int64, error) {
	n, err := p.normalize()
	if err != nil {
		return nil, err
	}
	return variantsNeeded(n), nil
}

// variantsNeeded is VariantsNeeded of a normalized plan; items without
// input (Clip.NoInput) need none.
func variantsNeeded(p Plan) map[[32]byte]int64 {
	p = p.searchCapacity()
	need := map[[32]byte]int64{}
	add := func(i int, n int64) {
		if c := &p.Corpus[i%len(p.Corpus)]; !c.NoInput() {
			need[c.SHA256] += n
		}
	}
	for li := range p.Levels {
		per := int64(p.Repeats * len(p.Targets))
		warm := per
		if p.WarmupOnce {
			warm = int64(len(p.Targets))
		}
		for i := range p.Warmup[li] {
			add(i, warm)
		}
		for i := range p.Requests[li] {
			add(i, per)
		}
	}
	if p.CacheProbe > 0 { // the probe's variant half and its one variant warm-up
		need[p.Corpus[0].SHA256] += int64(len(p.Targets) * (p.CacheProbe + 1))
	}
	return need
}

type runner struct {
	plan   Plan
	search []claims.SearchStep // the rate search's levels so far (Plan.Search)
	task   task.Task
	cfg    *config
	d      Dir
	forms  [][]form // per target, per corpus item
	urls   []string
	client []*http.Client
	auth   []string
	used   map[[32]byte]int64 // variants handed out per clip so far
	// extra numbers the variants of re-measured attempts, per clip, past
	// every number the plan uses (attempt.go); nil until the first.
	extra map[[32]byte]int64
	// inputs keep each clip's task.Input (for ASR its SHA-256 checkpoints)
	// across steps, so that a variant's hash starts at its changed byte,
	// not at the clip's start.
	inputs map[[32]byte]task.Input
	steps  []StepResult
	// discarded are the attempts measured again, stalled the steps whose
	// last attempt still broke the stall rule (attempt.go).
	discarded, stalled []StepResult
	fatal              error
	gone               map[string]string // targets whose server went away -> why
	// warmFailed: targets stopped because a step's warm-ups all failed ->
	// the first error.
	warmFailed map[string]string
	// unreachable: targets stopped because the last measured request of
	// every worker of a step failed to connect -> why.
	unreachable map[string]string
	// answered: targets that succeeded a request earlier in the run; a
	// step's failed warm-ups alone never stop them (judgeWarmups).
	answered map[string]bool
	// created is the topmost folder create made (the run directory, or
	// the first of its parents that did not exist): what a run that
	// fails before its first request removes (unmake).
	created string
}

func newRunner(p Plan, cfg *config, dir string) (*runner, error) {
	r := &runner{plan: p, task: p.Task, cfg: cfg, used: maps.Clone(p.FirstVariant), gone: map[string]string{}, answered: map[string]bool{}}
	if r.used == nil {
		r.used = map[[32]byte]int64{}
	}
	r.d.Path = dir
	maxC := slices.Max(p.Levels)
	if p.Open() {
		maxC = 0
		for li := range p.Levels {
			maxC = max(maxC, p.openWorkers(li, 1))
		}
	}
	for _, t := range p.Targets {
		f, err := newForms(r.task, t, p.Stream, p.Corpus)
		if err != nil {
			return nil, planErrorf("target %q: %v", t.Name, err)
		}
		r.forms = append(r.forms, f)
		r.urls = append(r.urls, strings.TrimRight(t.URL, "/")+r.task.Path())
		r.client = append(r.client, &http.Client{Transport: newTransport(maxC)})
	}
	if cfg.apiKey != "" {
		r.auth = []string{"Bearer " + cfg.apiKey}
	}
	return r, nil
}

// newTransport keeps one connection per worker alive between requests.
// Proxies come from the environment (HTTP_PROXY...), which Go never
// applies to loopback addresses.
func newTransport(maxC int) *http.Transport {
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialVec(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}),
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: maxC + 8,
		MaxConnsPerHost:     0,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		WriteBufferSize:     64 << 10,
		ReadBufferSize:      64 << 10,
	}
}

// dialVec dials as d does and wraps the connection in a vecConn, which
// writes each of the runner's requests, header block and body, in one
// writev(2).
func dialVec(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &vecConn{Conn: c}, nil
	}
}

// create makes the run directory, copies the clips and writes run.json.
func (r *runner) create() error {
	top := r.d.Path
	for p := filepath.Dir(top); p != filepath.Dir(p); p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		top = p
	}
	if err := os.MkdirAll(filepath.Dir(r.d.Path), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(r.d.Path, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &OutExistsError{r.d.Path}
		}
		return err
	}
	r.created = top
	p := r.plan
	r.d.Anchor = time.Now()
	run := &schemas.Run{
		Schema: schemas.RunSchema, Tool: r.cfg.tool, StartedAt: r.d.Anchor.UTC(), Seed: p.Seed,
		Protocol: schemas.Protocol{Levels: p.Levels, Requests: p.Requests, Passes: p.Passes, Warmup: p.Warmup,
			Repeats: p.Repeats, Perturb: !p.NoPerturb, TimeoutS: r.cfg.timeout.Seconds(),
			SuccessRule: r.task.SuccessRule(), Stream: p.Stream, TargetOrder: "alternate", WarmupOnce: p.WarmupOnce, WarmupRetries: WarmupRetries,
			Task: r.task.Name(), CacheProbe: p.CacheProbe, SLO: p.SLO, Percentiles: p.Percentiles},
		Scoring: p.Scoring, Command: p.Command, Targets: []schemas.Target{}, Corpus: []schemas.Clip{},
		// Replaced when the sweep ends; a process that exits during it (a
		// second Ctrl-C, a crash) leaves a run that says why it is incomplete.
		Incomplete: IncompleteEnded,
	}
	if run.Tool.Modules == nil {
		run.Tool.Modules = []schemas.Module{}
	}
	if p.Open() {
		pr := &run.Protocol
		pr.Mode, pr.RequestRates, pr.Burstiness = schemas.ModeOpen, p.Rates, FormatBurstiness(p.Burstiness)
		pr.MaxConcurrency, pr.ScheduleVersion = p.MaxConcurrency, schedule.Version
		if rp := p.Ramp; rp != nil {
			pr.RampUp = &schemas.RampUp{Strategy: rp.Strategy, StartRPS: rp.Start, DurationS: rp.Duration.Seconds()}
		}
		if p.Fixed != nil {
			pr.FixedSchedule = &schemas.FixedSchedule{SourceSHA256: p.FixedSHA256, OffsetsNs: schedule.Nanos(p.Fixed)}
		}
		if s := p.Search; s != nil {
			pr.FindRate = &schemas.FindRate{StartRPS: s.Start, Precision: s.Precision, MaxLevels: s.MaxLevels, Steps: []schemas.FindRateStep{}}
		}
	}
	if _, ok := r.task.(task.Sessioner); ok {
		rt := p.realtime()
		run.Protocol.Realtime = &rt
	}
	for li, c := range p.Levels {
		if p.Open() {
			break // c numbers the level; nothing bounds it
		}
		// Fewer measured requests than workers never load the server
		// with C at once: the level's figures are not concurrency C's.
		if n := p.Requests[li]; n < c {
			msg := fmt.Sprintf("concurrency %d measures only %d requests per repeat: at most %d are ever in flight, so its figures are not those of %d concurrent requests", c, n, n, c)
			run.Notes = append(run.Notes, msg)
			r.cfg.progress.Warnf("%s", msg)
		}
	}
	for _, t := range p.Targets {
		fields, err := redactFields(t.Fields)
		if err != nil {
			return err
		}
		// A password in the URL (http://user:pw@host) or a secret-named
		// form field (api_key=...) is sent, never written.
		run.Targets = append(run.Targets, schemas.Target{Name: t.Name, URL: fingerprint.Redact(t.URL), Model: t.Model, RequestFields: fields})
	}
	if err := os.Mkdir(filepath.Join(r.d.Path, "inputs"), 0o755); err != nil {
		return err
	}
	for _, c := range p.Corpus {
		if c.NoInput() {
			// A named voice: nothing to copy, nothing to perturb; its
			// requests send the same body every time.
			run.Corpus = append(run.Corpus, schemas.Clip{ID: c.ID, Source: c.Source, Language: c.Language, Speak: c.Speak, Voice: c.Voice,
				Perturb: schemas.PerturbNoReference})
			continue
		}
		sum := hex.EncodeToString(c.SHA256[:])
		file := "inputs/" + sum + ".wav"
		if err := newfile.Write(filepath.Join(r.d.Path, file), c.WAV.Bytes, 0o644); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		f := c.WAV.Format
		kind := "pcm"
		if f.Kind == perturb.KindFloat {
			kind = "float"
		}
		run.Corpus = append(run.Corpus, schemas.Clip{ID: c.ID, File: file, Source: c.Source, SHA256: sum,
			Size: int64(len(c.WAV.Bytes)), Format: kind, Frames: c.WAV.Frames(), Channels: f.Channels,
			SampleRate: f.SampleRate, Bits: f.BitsPerSample, ValidBits: f.ValidBits, Seconds: r.task.Seconds(c.WAV.Frames(), int(f.SampleRate)),
			Text: c.Text, Language: c.Language, Speak: c.Speak, Voice: c.Voice,
			SourceFormat: c.SourceFormat, SourceSHA256: c.SourceSHA256})
	}
	r.d.Run = run
	return r.writeRun()
}

// redactFields copies form fields with the values of secret-named ones
// (api_key, token, ...) replaced by fingerprint.Redacted.
func redactFields(f map[string]string) (map[string]string, error) {
	out := map[string]string{}
	if len(f) == 0 {
		return out, nil
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	if b, err = fingerprint.RedactJSON(b); err != nil {
		return nil, err
	}
	return out, json.Unmarshal(b, &out)
}

// writeRun replaces run.json atomically: a reader never sees half of it.
func (r *runner) writeRun() error {
	b, err := json.MarshalIndent(r.d.Run, "", "  ")
	if err != nil {
		return err
	}
	return newfile.WriteAtomic(filepath.Join(r.d.Path, schemas.RunFile), true, bytes.NewReader(append(b, '\n')).WriteTo)
}

func (r *runner) hookErr(where string, err error) {
	if err == nil {
		return
	}
	r.d.Event("", "hook_error", where+": "+err.Error())
	r.cfg.progress.Warnf("%s: %v", where, err)
}

// sweep runs the hooks' BeforeSweep, every step (sweepSteps), the cache
// probe, the AfterSweep hooks, and writes the run's end (finish).
func (r *runner) sweep(ctx context.Context) (*Result, error) {
	for _, h := range r.cfg.hooks {
		if h.BeforeSweep != nil {
			if err := h.BeforeSweep(ctx, &r.d); err != nil {
				// No request was sent: nothing of the run is evidence.
				for _, h := range r.cfg.hooks {
					if h.Aborted != nil {
						h.Aborted(&r.d, err)
					}
				}
				r.unmake()
				return nil, err
			}
		}
	}
	// A hook may re-seed the run (pre-registration binds the seed to the
	// plan's token): every variant, id and schedule is drawn from the seed
	// run.json says from here on, and run.json says it before any request.
	if r.d.Run.Seed != r.plan.Seed {
		r.plan.Seed = r.d.Run.Seed
		if err := r.writeRun(); err != nil {
			return nil, err
		}
	}
	sweepCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := r.plan
	r.cfg.progress.Sweep(p.sizes())
	interrupted := r.sweepSteps(sweepCtx)
	if interrupted {
		r.d.Event("", "interrupted", "the sweep was stopped; in-flight requests were drained")
	}
	if !interrupted && r.fatal == nil && p.CacheProbe > 0 {
		for ti, t := range p.Targets {
			if sweepCtx.Err() != nil || r.stopped(t.Name) {
				continue
			}
			if err := r.probe(sweepCtx, ti); err != nil {
				r.fatal = err
				break
			}
		}
	}
	// A server that went away after its last step still ran its part of
	// the sweep without being watched to the end: say so.
	for _, t := range p.Targets {
		if r.stopped(t.Name) {
			r.noteStopped(t.Name)
		}
	}
	for _, h := range r.cfg.hooks {
		if h.AfterSweep != nil {
			r.hookErr("after sweep", h.AfterSweep(context.WithoutCancel(ctx), &r.d))
		}
	}
	return r.finish(interrupted)
}

// sweepSteps runs level -> repeat -> target, the target order reversed
// on even repeats, and says whether the sweep was interrupted; a step's
// error is r.fatal.
func (r *runner) sweepSteps(ctx context.Context) (interrupted bool) {
	for li := 0; li < len(r.plan.Levels); li++ {
		p, c := r.plan, r.plan.Levels[li]
		for rep := 1; rep <= p.Repeats; rep++ {
			// Alternate the order so no target always runs right after
			// another one warmed the host up.
			order := slices.Clone(p.Targets)
			if rep%2 == 0 {
				slices.Reverse(order)
			}
			for _, t := range order {
				if ctx.Err() != nil {
					return true
				}
				if r.stopped(t.Name) {
					r.noteStopped(t.Name)
					r.skip(li, rep)
					continue
				}
				ti := slices.IndexFunc(p.Targets, func(x Target) bool { return x.Name == t.Name })
				s := Step{Target: t.Name, Level: li, Concurrency: c, Repeat: rep, Attempt: 1}
				if p.Open() {
					s.Rate = p.Rates[li]
				}
				res, err := r.measure(ctx, ti, s)
				if err != nil {
					r.fatal = err
					return false
				}
				r.steps = append(r.steps, res)
				if res.Stopped {
					r.noteStopped(t.Name)
				}
				if res.Interrupted {
					return true
				}
			}
		}
		if p.Search != nil && !r.searchNext(li) {
			break
		}
	}
	return false
}

// finish writes run.json's end and claims.json, and returns the Result
// with the run's error: the fatal one, ErrInterrupted, or the targets
// stopped.
func (r *runner) finish(interrupted bool) (*Result, error) {
	run := r.d.Run
	run.EndedAt = time.Now().UTC()
	stopped := len(r.gone) > 0 || len(r.warmFailed) > 0 || len(r.unreachable) > 0
	switch {
	case r.fatal != nil:
		run.Incomplete = "failed: " + r.fatal.Error()
	case interrupted:
		run.Incomplete = "interrupted"
	case stopped:
		run.Incomplete = r.stoppedError().Error()
	default:
		run.Complete, run.Incomplete = true, ""
	}
	if err := r.writeRun(); err != nil {
		return nil, err
	}
	res := &Result{Dir: r.d.Path, Run: *run, Steps: r.steps, Discarded: r.discarded, Stalled: r.stalled}
	cl, err := r.writeClaims()
	if err != nil {
		return res, err
	}
	res.Claims = cl
	switch {
	case r.fatal != nil:
		return res, r.fatal
	case interrupted:
		return res, ErrInterrupted
	case stopped:
		return res, r.stoppedError()
	}
	return res, nil
}

// writeClaims computes claims.json from the files just written, the same
// way a verifier will.
func (r *runner) writeClaims() (schemas.Claims, error) {
	_, _, cl, err := claims.RecomputeDir(os.DirFS(r.d.Path))
	if err != nil {
		return cl, fmt.Errorf("compute claims from the records: %w", err)
	}
	b, err := json.MarshalIndent(cl, "", "  ")
	if err != nil {
		return cl, err
	}
	return cl, newfile.Write(filepath.Join(r.d.Path, schemas.ClaimsFile), append(b, '\n'), 0o644)
}

// job is one request of a step, its variant settled before the timed
// phase starts.
type job struct {
	clip    *Clip
	item    int   // the clip's index in the corpus (its envelope's)
	variant int64 // -1: the clip unchanged (--no-perturb, the cache probe's repeats, an item without input)
	v       perturb.Variant
	s       perturb.Splice // the bytes sent: the variant's, or the clip's as it is
	sha     string         // "" for an item without input
	seconds float64        // the clip's seconds (Task.Seconds), for RecordSeconds
}

// input is clip c's task.Input, opened once per run; nil for an item
// without input.
func (r *runner) input(c *Clip) (task.Input, error) {
	if c.NoInput() {
		return nil, nil
	}
	if in := r.inputs[c.SHA256]; in != nil {
		return in, nil
	}
	if r.inputs == nil {
		r.inputs = map[[32]byte]task.Input{}
	}
	in, err := r.task.Input(c.ID, c.WAV.Bytes)
	if err != nil {
		return nil, fmt.Errorf("clip %q: %w", c.ID, err)
	}
	r.inputs[c.SHA256] = in
	return in, nil
}

// variant settles j as variant number j.variant of its clip, or as the
// clip unchanged when j.variant is -1 (sha then the clip's). An item
// without input sends its envelope alone: no bytes, sha "", 0 s of input.
func (r *runner) variant(j *job, in task.Input) error {
	c := j.clip
	if c.NoInput() {
		j.sha, j.s, j.seconds = "", perturb.Splice{}, 0
		return nil
	}
	j.seconds = r.task.Seconds(c.WAV.Frames(), c.WAV.Format.SampleRate)
	if j.variant < 0 {
		j.sha, j.s = hex.EncodeToString(c.SHA256[:]), task.Whole(in, c.WAV.Bytes)
		return nil
	}
	idx, err := perturb.Plan{Seed: r.plan.Seed}.Index(c.SHA256, in.Positions(), j.variant)
	if err == nil {
		j.v, err = in.Variant(idx)
	}
	if err != nil {
		return fmt.Errorf("clip %q variant %d: %w", c.ID, j.variant, err)
	}
	j.sha, j.s = hex.EncodeToString(j.v.SHA256[:]), in.Splice(j.v)
	return nil
}

// skip hands out the variant numbers of a step that is not run (its
// target stopped) as jobs would have: a clip's n-th variant is the plan's,
// whichever steps ran, so that a verifier re-derives every number from
// run.json alone, and a target that stops at any moment leaves the others'
// numbers where they would have been.
func (r *runner) skip(li, repeat int) {
	p := r.plan
	if p.NoPerturb {
		return
	}
	w, n := p.warmupAt(li, repeat), p.Requests[li]
	for seq := range w + n {
		i := seq
		if seq >= w {
			i = seq - w
		}
		if c := &p.Corpus[i%len(p.Corpus)]; !c.NoInput() {
			r.used[c.SHA256]++
		}
	}
}

// jobs are the step's requests in schedule order (newJobs): its
// warm-ups, then its measured requests, each pass over the corpus in
// order.
//
// A re-measured attempt (attempt > 1) numbers its variants from r.extra,
// past every number of the plan, so the plan's numbering stays run.json's
// alone and no attempt sends another's bytes.
func (r *runner) jobs(li, repeat, attempt int) ([]job, error) {
	p := r.plan
	w := p.warmupAt(li, repeat)
	counter := r.used
	if attempt > 1 {
		counter = r.extraCounter()
	}
	return r.newJobs(counter, w+p.Requests[li], func(seq int) (int, bool) {
		if seq >= w {
			seq -= w
		}
		return seq % len(p.Corpus), !p.NoPerturb
	})
}

// newJobs is the one job builder, for steps and the cache probe: n jobs,
// job seq sending corpus item pick(seq) as its next variant, or unchanged
// when pick says so (an item without input always is). Variant numbers are handed out in seq order, then
// the variants are hashed on every core.
func (r *runner) newJobs(counter map[[32]byte]int64, n int, pick func(seq int) (item int, variant bool)) ([]job, error) {
	p := r.plan
	jobs := make([]job, n)
	ins := make([]task.Input, n)
	for seq := range jobs {
		i, perturbed := pick(seq)
		c := &p.Corpus[i]
		j := &jobs[seq]
		j.clip, j.item, j.variant = c, i, -1
		var err error
		if ins[seq], err = r.input(c); err != nil {
			return nil, err
		}
		if perturbed && !c.NoInput() {
			j.variant = counter[c.SHA256]
			counter[c.SHA256]++
		}
	}
	errs := make([]error, par.Workers(len(jobs)))
	par.For(len(jobs), func(g, i int) bool {
		if err := r.variant(&jobs[i], ins[i]); err != nil {
			errs[g] = err
			return false
		}
		return true
	})
	return jobs, errors.Join(errs...)
}

// recordFile appends one JSON line per finished request as it ends.
// Workers encode their line in a pooled buffer and queue it; whichever
// worker finds the file free writes the whole queue in one write(2), so no
// worker waits for another's write before its next request (with a lock
// around encode and write, the dispatch gap's p99 at C=64 was 3-4.5 ms on
// two cores), and no goroutine is woken per request (a writer goroutine fed
// by a channel cost C=1 a wake-up per request). A crash loses at most the
// lines not yet written, never half a line.
type recordFile struct {
	f *os.File

	qmu   sync.Mutex // guards queue
	queue []byte     // encoded lines not yet written

	wmu   sync.Mutex // held by the one worker writing to f
	spare []byte     // the last batch written, reused (under wmu)
	err   error      // first write error (under wmu)
}

func createRecordFile(path string) (*recordFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := newfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	return &recordFile{f: f}, nil
}

// linePool holds the buffers workers encode their lines in
// (appendRecord: encoding/json's bytes without its reflection).
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// write appends rec, encoded by the calling worker, to the file's queue;
// whichever worker finds the file free writes everything queued in one
// system call (flat combining). A worker alone, as at C=1, writes its own
// line at once and wakes nobody; many workers share a few large writes,
// and none waits for the file: a worker that finds it busy leaves its line
// to the one writing, which looks at the queue again before it lets go.
func (rf *recordFile) write(rec *schemas.Record) {
	// A secret the session holds (the API key) never reaches a record,
	// even when a server echoes it in an error or a transcript.
	if rec.Error != "" {
		rec.Error = fingerprint.Redact(rec.Error)
	}
	rec.Text = fingerprint.ScrubSecrets(rec.Text)
	rec.ResponseNote = fingerprint.ScrubSecrets(rec.ResponseNote)
	line := linePool.Get().(*[]byte)
	b, ok := appendRecord((*line)[:0], rec)
	if !ok {
		// encoding/json refuses it too (a non-finite number): keep the
		// line out rather than write half of one.
		linePool.Put(line)
		return
	}
	rf.qmu.Lock()
	rf.queue = append(rf.queue, b...)
	rf.qmu.Unlock()
	*line = b
	linePool.Put(line)
	rf.flush()
}

// flush writes what is queued unless another worker is writing: that one
// picks the queue up, because it looks again after unlocking.
func (rf *recordFile) flush() {
	for rf.wmu.TryLock() {
		for {
			rf.qmu.Lock()
			batch := rf.queue
			rf.queue = rf.spare[:0]
			rf.qmu.Unlock()
			if len(batch) == 0 {
				rf.spare = batch
				break
			}
			if rf.err == nil {
				_, rf.err = rf.f.Write(batch)
			}
			rf.spare = batch
		}
		rf.wmu.Unlock()
		rf.qmu.Lock()
		empty := len(rf.queue) == 0
		rf.qmu.Unlock()
		if empty {
			return
		}
	}
}

func (rf *recordFile) close() error {
	rf.wmu.Lock() // every worker has returned; write what is left
	defer rf.wmu.Unlock()
	if len(rf.queue) > 0 && rf.err == nil {
		_, rf.err = rf.f.Write(rf.queue)
	}
	rf.queue = nil
	return errors.Join(rf.err, rf.f.Close())
}

// worker holds what one closed-loop worker reuses between requests.
type worker struct {
	id  int
	buf bytes.Buffer
	br  *bufio.Reader
	answerState
}

func newWorker(id int) *worker { return &worker{id: id, br: bufio.NewReaderSize(nil, 16<<10)} }

// step runs one step: its records file, its warm-ups (retried when all
// failed), its measured requests, and the hooks around them.
func (r *runner) step(ctx context.Context, ti int, s Step) (StepResult, error) {
	p := r.plan
	res := StepResult{Step: s, Errors: map[string]int{}}
	jobs, err := r.jobs(s.Level, s.Repeat, s.Attempt)
	if err != nil {
		return res, err
	}
	recPath := filepath.Join(r.d.Path, filepath.FromSlash(schemas.RecordsPath(s.Target, s.Concurrency, s.Repeat)))
	rf, err := createRecordFile(recPath)
	if err != nil {
		return res, err
	}
	for _, h := range r.cfg.hooks {
		if h.BeforeStep != nil {
			r.hookErr("before "+stepName(s), h.BeforeStep(ctx, &r.d, s))
		}
	}
	w := p.warmupAt(s.Level, s.Repeat)
	res.Planned = len(jobs) - w
	r.cfg.progress.Begin(s, w, len(jobs)-w)
	nw := s.Concurrency
	if p.Open() {
		nw = p.openWorkers(s.Level, s.Repeat)
	}
	st := &stepRun{r: r, s: s, ti: ti, jobs: jobs, rf: rf,
		recs: make([]schemas.Record, len(jobs), len(jobs)+WarmupRetries), workers: make([]*worker, nw),
		// In-flight requests outlive an interrupt: they drain within the timeout.
		reqBase: context.WithoutCancel(ctx), runCtx: ctx}
	for i := range st.workers {
		st.workers[i] = newWorker(i)
	}
	// A server that goes away ends the step: no new request starts.
	if sc, ok := r.cfg.stops[s.Target]; ok {
		var cancel context.CancelFunc
		st.runCtx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-sc.ch:
				cancel()
			case <-st.runCtx.Done():
			}
		}()
	}
	st.phase(schemas.PhaseWarmup, 0, w)
	warm := st.retryWarmups(w)
	warmFailed := allFailed(warm)
	if !r.judgeWarmups(s, warm, w) {
		for i := range warm {
			if warm[i].OK {
				res.WarmupSucceeded++
			}
		}
		for _, h := range r.cfg.hooks {
			if h.BeforeMeasure != nil && ctx.Err() == nil {
				r.hookErr("before measuring "+stepName(s), h.BeforeMeasure(ctx, &r.d, res.Step))
			}
		}
		st.phase(schemas.PhaseMeasure, w, len(jobs))
	} else {
		warmFailed = false // stopped already
	}
	if err := rf.close(); err != nil {
		return res, fmt.Errorf("write records of %s: %w", stepName(s), err)
	}
	r.tally(ctx, &res, st.recs)
	if err := r.judgeStalls(ctx, &res, st.recs[:len(jobs)], recPath); err != nil {
		return res, err
	}
	measured := st.recs[w:len(jobs)]
	if ctx.Err() == nil && !r.stopUnreachable(s, measured) && warmFailed && res.Requests > 0 && res.Succeeded == 0 {
		r.stopMeasuredFailed(s, measured)
	}
	if res.Requests > 0 && res.Succeeded == 0 {
		msg := fmt.Sprintf("target %q failed every request of concurrency %d, repeat %d (%s)", s.Target, s.Concurrency, s.Repeat, errorSummary(res.Errors))
		r.d.Run.Notes = append(r.d.Run.Notes, msg)
		r.d.Event(s.Target, "level_all_failed", msg)
		r.cfg.progress.Warnf("%s", msg)
	}
	// The step's after-probes and /metrics scrapes run even when Ctrl-C
	// ended the step: they close its evidence. They get their own short
	// limit instead of the cancelled context.
	afterCtx, cancelAfter := context.WithTimeout(context.WithoutCancel(ctx), AfterStepTimeout)
	defer cancelAfter()
	for _, h := range r.cfg.hooks {
		if h.AfterStep != nil {
			r.hookErr("after "+stepName(s), h.AfterStep(afterCtx, &r.d, res))
		}
	}
	r.cfg.progress.End(res)
	return res, nil
}

// stepRun is one step's requests as they are sent.
type stepRun struct {
	r       *runner
	s       Step
	ti      int
	jobs    []job
	recs    []schemas.Record // one per job, then the warm-ups retried
	rf      *recordFile
	workers []*worker
	reqBase context.Context // what requests run under: outlives an interrupt
	runCtx  context.Context // ends when no new request may start
}

// phase sends jobs [from, to) on the step's workers, each taking the
// next seq when it is free (a closed loop), and writes each record as
// it ends.
func (st *stepRun) phase(name string, from, to int) {
	if st.r.plan.Open() {
		st.openPhase(name, from, to)
		return
	}
	var next atomic.Int64
	next.Store(int64(from))
	var wg sync.WaitGroup
	for _, wk := range st.workers {
		wg.Go(func() {
			for n := 0; st.runCtx.Err() == nil; n++ {
				seq := int(next.Add(1) - 1)
				if seq >= to {
					return
				}
				if h := st.r.cfg.stallHook; h != nil {
					if d := h(st.s, name, wk.id, n); d > 0 {
						time.Sleep(d)
					}
				}
				st.send(wk, seq, &st.jobs[seq], name)
			}
		})
	}
	wg.Wait()
}

// send sends job j as request seq of phase on worker wk, and writes its
// record.
func (st *stepRun) send(wk *worker, seq int, j *job, phase string) {
	r, s := st.r, st.s
	rec := &st.recs[seq]
	rec.RequestID = AttemptRequestID(r.plan.Seed, s.Target, s.Concurrency, s.Repeat, seq, s.Attempt)
	r.do(st.reqBase, st.ti, wk, j, rec)
	rec.Target, rec.Concurrency, rec.Repeat, rec.Phase, rec.Seq, rec.Worker = s.Target, s.Concurrency, s.Repeat, phase, seq, wk.id
	if s.Attempt > 1 {
		rec.Attempt = s.Attempt
	}
	r.keepAnswer(wk, rec)
	st.rf.write(rec)
	r.cfg.progress.Done(rec)
}

// retryWarmups sends one warm-up again, up to WarmupRetries times, while
// every one sent failed; it returns the step's warm-up records. Retried
// warm-ups take the seqs after the measured ones, so that the planned
// seqs keep their numbers whether or not a retry was sent.
func (st *stepRun) retryWarmups(w int) []schemas.Record {
	r, s := st.r, st.s
	warm := st.recs[:w]
	for retry(warm, w) && st.runCtx.Err() == nil && !r.stopped(s.Target) {
		k := len(warm) - w
		if k == 0 {
			r.cfg.progress.Warnf("%s: all %d warm-up requests failed (the first: %s); sending one again, at most %d times", stepName(s), w, firstError(warm), WarmupRetries)
		}
		seq := len(st.jobs) + k
		st.recs = append(st.recs, schemas.Record{})
		st.send(st.workers[0], seq, &st.jobs[k%w], schemas.PhaseWarmup)
		warm = append(warm[:w:w], st.recs[len(st.jobs):]...)
	}
	return warm
}

// tally counts a step's records into res: warm-ups, measured requests,
// their span and outcomes; a record never sent marks the step stopped
// (its server went away) or interrupted.
func (r *runner) tally(ctx context.Context, res *StepResult, recs []schemas.Record) {
	first := true
	for i := range recs {
		rec := &recs[i]
		if rec.Target == "" { // never sent: interrupted, or the server went away
			if ctx.Err() == nil && r.stopped(res.Target) {
				res.Stopped = true
			} else {
				res.Interrupted = true
			}
			continue
		}
		if rec.OK {
			r.answered[res.Target] = true
		}
		if rec.Phase == schemas.PhaseWarmup {
			res.Warmup++
			continue
		}
		res.Requests++
		if first || rec.StartNs < res.StartNs {
			res.StartNs = rec.StartNs
		}
		if first || rec.EndNs > res.EndNs {
			res.EndNs = rec.EndNs
		}
		first = false
		if rec.OK {
			res.Succeeded++
		} else {
			res.Errors[rec.ErrorClass]++
		}
	}
}

// stepName names a step in progress and messages: "a c=16 r=1", or an
// open-loop level by its offered rate, "a 150 req/s r=1" (its
// Concurrency is only the level's number); a step measured again says
// its attempt, "a c=16 r=1 (attempt 2)".
func stepName(s Step) string {
	name := fmt.Sprintf("%s c=%d r=%d", s.Target, s.Concurrency, s.Repeat)
	if s.Rate > 0 {
		name = fmt.Sprintf("%s %s req/s r=%d", s.Target, strconv.FormatFloat(s.Rate, 'g', -1, 64), s.Repeat)
	}
	if s.Attempt > 1 {
		name += fmt.Sprintf(" (attempt %d)", s.Attempt)
	}
	return name
}

func errorSummary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// do sends one request and fills rec with what happened.
func (r *runner) do(base context.Context, ti int, wk *worker, j *job, rec *schemas.Record) {
	rec.Clip, rec.Variant, rec.InputSHA256 = j.clip.ID, j.variant, j.sha
	rec.SampleIndex, rec.ByteOffset = -1, -1 // --no-perturb, the cache probe's repeats, an item without input
	if j.variant >= 0 {
		rec.SampleIndex, rec.ByteOffset = j.v.SampleIndex, j.v.ByteOffset
	}
	ctx, cancel := context.WithTimeout(base, r.cfg.timeout)
	defer cancel()
	var text string
	var ok bool
	if ss, is := r.task.(task.Sessioner); is {
		text, ok = r.session(ctx, ti, ss, j, rec)
	} else {
		text, ok = r.send(ctx, ti, wk, j, rec)
	}
	// The seconds RTF counts: ASR's are the clip's whatever the answer,
	// another task's may be its output's.
	rec.Seconds = r.task.RecordSeconds(j.seconds, text)
	if !ok {
		return
	}
	// Scored as written, so that rescoring the record gives the same.
	text = fingerprint.ScrubSecrets(text)
	rec.Text = text
	var class, msg string
	if rec.Scored, class, msg = r.task.Score(text); class != "" {
		rec.ErrorClass, rec.Error = class, msg
		return
	}
	rec.OK = true
}

// send sends j's request and reads the answer: its output, and whether
// it is one to score (rec holds the error class otherwise).
func (r *runner) send(ctx context.Context, ti int, wk *worker, j *job, rec *schemas.Record) (string, bool) {
	b := &body{}
	f := &r.forms[ti][j.item]
	b.reset(f, j.s)
	segs := b.segs
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.urls[ti], b)
	if err != nil {
		rec.ErrorClass, rec.Error = schemas.ErrConnect, err.Error()
		return "", false
	}
	req.ContentLength = b.len()
	// A retry on a keep-alive connection the server had closed re-reads
	// the same bytes; b is never written again, so sharing its byte is safe.
	req.GetBody = func() (io.ReadCloser, error) { return &body{segs: segs}, nil }
	req.Header["Content-Type"] = f.contentType
	req.Header["Accept"] = acceptAny
	req.Header["X-Request-Id"] = []string{rec.RequestID}
	if r.auth != nil {
		req.Header["Authorization"] = r.auth
	}
	anchor := r.d.Anchor
	rec.StartNs = time.Since(anchor).Nanoseconds()
	resp, err := r.client[ti].Do(req)
	if err != nil {
		rec.EndNs = time.Since(anchor).Nanoseconds()
		rec.ErrorClass, rec.Error = classify(ctx, err), unwrapURLError(err).Error()
		return "", false
	}
	defer resp.Body.Close()
	rec.Status = resp.StatusCode
	// SGLang-Omni names its own id (transcription-<uuid>) in this header.
	rec.ServerRequestID = resp.Header.Get("X-Request-Id")
	wk.contentType, wk.streamed = resp.Header.Get("Content-Type"), false
	// The task says which answers are streams (ASR: SSE); any other is
	// read whole, its first output its headers.
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode == http.StatusOK {
		if r.plan.Stream && r.task.IsStream(ct) {
			return r.readStream(ctx, wk, resp, rec, r.decodeStream)
		}
		// A whole body the task reads as it comes: its first output is
		// its content's (tts: the first PCM bytes), not its headers.
		if wr, ok := r.task.(task.WholeReader); ok && wr.ReadsWhole(ct) {
			return r.readStream(ctx, wk, resp, rec, wr.DecodeWhole)
		}
	}
	rec.FirstByteNs = time.Since(anchor).Nanoseconds()
	return r.readWhole(ctx, ti, wk, resp, rec)
}

// acceptAny is every request's Accept header value, shared (net/http
// never writes a request's header values).
var acceptAny = []string{"*/*"}

// readStream reads a streamed 200 answer through the task, which marks
// the first output.
func (r *runner) readStream(ctx context.Context, wk *worker, resp *http.Response, rec *schemas.Record, decode decodeFunc) (string, bool) {
	anchor := r.d.Anchor
	wk.streamed = true
	wk.br.Reset(r.answerReader(wk, &capReader{r: resp.Body, left: maxResponseBytes}))
	onText := func() { rec.FirstByteNs = time.Since(anchor).Nanoseconds() }
	text, id, err := decode(resp.Header, wk.br, onText)
	rec.EndNs = time.Since(anchor).Nanoseconds()
	wk.br.Reset(nil)
	if rec.ServerRequestID == "" && id != "" && id != rec.RequestID {
		rec.ServerRequestID = id // vLLM: transcribe-<X-Request-Id>
	}
	if err != nil {
		rec.ErrorClass, rec.Error = classify(ctx, err), err.Error()
		rec.Text = text
		return "", false
	}
	return text, true
}

// decodeFunc reads an answer as it comes, calling onText at its first
// output.
type decodeFunc func(h http.Header, br *bufio.Reader, onText func()) (text, id string, err error)

// decodeStream is the task's stream reader: DecodeStreamHeader where the
// task reads headers, else DecodeStream.
func (r *runner) decodeStream(h http.Header, br *bufio.Reader, onText func()) (string, string, error) {
	if hs, ok := r.task.(task.HeaderStreamer); ok {
		return hs.DecodeStreamHeader(h, br, onText)
	}
	return r.task.DecodeStream(br, onText)
}

// readWhole reads a whole answer: an error's class and message, or a
// 200's output decoded by the task.
func (r *runner) readWhole(ctx context.Context, ti int, wk *worker, resp *http.Response, rec *schemas.Record) (string, bool) {
	wk.buf.Reset()
	_, err := wk.buf.ReadFrom(&capReader{r: resp.Body, left: maxResponseBytes})
	rec.EndNs = time.Since(r.d.Anchor).Nanoseconds()
	if err != nil {
		rec.ErrorClass, rec.Error = classify(ctx, err), "reading the response: "+err.Error()
		return "", false
	}
	if resp.StatusCode != http.StatusOK {
		rec.ErrorClass = schemas.ErrHTTP
		if _, shed := engine.Shed(resp.StatusCode, string(wk.buf.Bytes())); shed {
			rec.ErrorClass = schemas.ErrShed
		}
		rec.Error = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, safeString(wk.buf.Bytes(), 300))
		return "", false
	}
	text, note, err := r.task.Decode(r.plan.Targets[ti].Fields, resp.Header.Get("Content-Type"), wk.buf.Bytes())
	rec.ResponseNote = note
	if err != nil {
		rec.ErrorClass, rec.Error = schemas.ErrDecode, err.Error()
		return "", false
	}
	return text, true
}

// maxResponseBytes bounds the response body read per request: a
// transcript is kilobytes, and a server that sends without end must fail
// the request (decode), not exhaust the client's memory.
var maxResponseBytes int64 = 64 << 20

// errTooLarge is the error of a response past maxResponseBytes.
var errTooLarge = errors.New("the response is larger than the limit")

// capReader reads at most left bytes and fails with errTooLarge past them,
// so a cut-off body is never taken for a whole one.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, fmt.Errorf("%w (%d bytes)", errTooLarge, maxResponseBytes)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, fmt.Errorf("%w (%d bytes)", errTooLarge, maxResponseBytes)
	}
	return n, err
}

func classify(ctx context.Context, err error) string {
	var ne net.Error
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var st *StreamError
	var oe *net.OpError
	switch {
	case errors.As(err, &st):
		return st.Class
	case errors.Is(err, errTooLarge), errors.As(err, &se), errors.As(err, &te):
		return schemas.ErrDecode
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return schemas.ErrTimeout
	case errors.Is(err, context.Canceled):
		return schemas.ErrCanceled
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &oe) && oe.Op == "dial":
		return schemas.ErrConnect
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		// The request was sent on a connection the server then closed:
		// it answered nothing, or cut its answer (a server that died).
		return schemas.ErrReset
	default:
		return schemas.ErrConnect
	}
}
