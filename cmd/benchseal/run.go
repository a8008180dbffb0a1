package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func init() { register(newRunCmd) }

type runFlags struct {
	requestRate             string
	duration                string
	slo                     string
	percentiles             string
	burstiness              string
	maxConcurrency          int
	rampUp                  string
	rampUpStart             float64
	findRate                bool
	fixedSchedule           string
	findRatePrecision       float64
	findRateMaxLevels       int
	realtimeChunkMs         int
	realtimeSpeed           float64
	targets, models, forms  []string
	audio, corpus, out      string
	audioColumn, textColumn string
	task                    string
	concurrency, requests   string
	passes, warmup, repeats int
	seed                    uint64
	language, format        string
	timeout                 time.Duration
	apiKey                  string
	noPerturb, stream       bool
	normalizer, aligner     string
	failuresAsDeletions     bool

	cacheProbe, noCacheProbe bool // --cache-probe, --no-cache-probe

	redactHost               bool
	gpus                     []string
	sampleInterval           time.Duration
	launch, launchCmd        []string
	launchLog, serverConfigs []string
	readyTimeout, stopGrace  time.Duration
	seal, key                string
	allowUnlistedModel       bool
	compat                   string // --compat: a peer's schedule, and its figures printed after the run

	eventsFlags    // --otlp-listen, --otlp-wait, --server-events (run_events.go)
	roundTripFlags // --asr-target, --asr-model (run_roundtrip.go)
	tsaFlags       // --tsa, --tsa-cert (tsa.go)
}

func newRunCmd(e *env) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "measure transcription servers with a closed-loop concurrency sweep",
		Long: `run drives each target's /v1/audio/transcriptions with a closed-loop sweep:
at every concurrency level C, C workers each send a request, read the whole
response and send the next, never more than C in flight. Every request sends
its own 1-LSB variant of its clip, so no cache can recognise it within the
run; each run draws a fresh random --seed (recorded), so another run shares a
variant only by rare chance (--seed S re-sends run S's variants). Levels,
repeats and targets are interleaved (level -> repeat -> target, the target
order reversed on even repeats) so all targets see the same host noise.

Before measuring, every target must answer GET /v1/models and, when it lists
models, serve --model (--allow-unlisted-model for servers that ignore the
field); with --seal --key the key is loaded first. A step whose warm-ups all
fail sends one again, at most 3 times; a target is then stopped, with the first
error printed, only if it has not answered earlier in the run or its server
refuses connections (one that answered goes on measuring, and is stopped if
that step's measured requests all fail too). The run ends with a
failure summary per target, warns about every step above 1 % errors and exits
1 when a step failed every measured request. A closed-loop step whose workers
stalled more than verify's check 7 allows (gaps over 50 ms adding up to more
than 5 % of the worker time) is measured again, at most twice, every attempt
kept (records/<target>/attempts/); a step still stalled after that is named
with its stall share and the run exits 1. The run directory
(--out, which must not exist) gets run.json, records/<target>/c<C>-r<R>.jsonl
(one line per request, warm-ups included, written as requests end) and
claims.json. The first Ctrl-C stops starting requests, lets those in flight
finish and keeps what was measured (exit status 130); a second one exits at
once.

Requests per level: --requests N (or one per level, comma-separated), or
--passes P over the corpus; by default the larger of the corpus size and 8*C.
An open loop may give --duration D instead: rate × D requests per level.
The API key (--api-key or OPENAI_API_KEY) is sent as a bearer token and never
written anywhere: wherever it appears in what the run writes (a server's log,
config, probes, errors), it is replaced by [REDACTED], as are URL passwords and
secret form fields. A key under 8 characters is replaced only where it follows
its name (run warns): use a longer one.

The run also records env/ (client, host, GPUs), telemetry/ (host and GPU
samples every --sample-interval, one line per step with the /metrics cache
counters) and servers/NAME/ (probes before and after, /metrics before and
after each step). --launch NAME='command' starts a target's server (in its
own process group; its URL is the --target NAME=URL), waits until it answers
/health or /v1/models (--ready-timeout), logs its output with timestamps,
redacted, to servers/NAME/launch.log and stops it at the end (SIGTERM,
SIGKILL after --stop-grace; servers/NAME/launch.json). A launched server that
exits during the run stops that target: the run keeps what it measured, is
marked incomplete and exits 1. --seal OUT.tar.zst seals a complete run as
'benchseal seal' does.

` + serverEventsHelp,
		Example: `  benchseal run --target sglang=http://127.0.0.1:30000 --target vllm=http://127.0.0.1:8000 \
    --corpus clips/ --concurrency 1,16,64 --requests 256 --out runs/qwen3-asr`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRun(cmd, e, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.targets, "target", nil, "a server under test as NAME=URL (its base URL; a trailing /v1 is dropped, with a note); repeat for several")
	fl.StringArrayVar(&f.models, "model", nil, "model to request: M for every target, or NAME=M for one (default: the one the server lists)")
	fl.StringVar(&f.audio, "audio", "", "one WAV clip (reference: a same-named .txt next to it)")
	fl.StringVar(&f.task, "task", "", fmt.Sprintf("what one request is: %s (default %s; recorded as protocol.task)", strings.Join(task.Names(), ", "), task.DefaultName))
	fl.StringVar(&f.corpus, "corpus", "", "a folder of WAV, FLAC or MP3 clips (+ same-named .txt), a LibriSpeech folder (*.trans.txt), a JSONL manifest, a Common Voice .tsv, a .parquet file or a SeedTTS meta.lst")
	fl.StringVar(&f.audioColumn, "audio-column", "", "a .parquet corpus's audio column: a struct of bytes and path, or bytes (default \""+task.DefaultAudioColumn+"\")")
	fl.StringVar(&f.textColumn, "text-column", "", "a .parquet corpus's reference text column (default \""+task.DefaultTextColumn+"\")")
	fl.StringVar(&f.concurrency, "concurrency", defaultConcurrency, "concurrency levels, comma-separated")
	fl.StringVar(&f.requestRate, "request-rate", "", "open loop: offered rates in requests per second, comma-separated, one level each (instead of --concurrency; default --requests: 8 s of each rate's load); docs/protocol.md \"Open loop\"")
	fl.IntVar(&f.realtimeChunkMs, "realtime-chunk-ms", task.DefaultChunkMs, "--task realtime: milliseconds of audio in each streamed chunk (recorded as protocol.realtime)")
	fl.Float64Var(&f.realtimeSpeed, "realtime-speed", 1, "--task realtime: stream each clip this many times faster than real time (recorded as protocol.realtime)")
	fl.StringVar(&f.percentiles, "percentiles", "", "latency percentiles to publish beside the fixed p50, p90, p95 and p99, comma-separated (e.g. 50,90,99,99.9): in claims.json, the report and compare; recorded in run.json")
	fl.StringVar(&f.slo, "slo", "", "limits goodput counts against, comma-separated: e2e=DURATION, ttfb=DURATION (e.g. e2e=500ms,ttfb=200ms), from the planned arrival in an open loop, from the send otherwise")
	fl.StringVar(&f.burstiness, "burstiness", "1", "open loop: the arrivals' gamma shape (1 Poisson, below 1 burstier, inf constant gaps)")
	fl.IntVar(&f.maxConcurrency, "max-concurrency", 0, "open loop: most requests in flight; a request waits for a slot after its planned time (0: no bound)")
	fl.StringVar(&f.rampUp, "ramp-up", "", "open loop: each level's warm-ups arrive on a ramp, STRATEGY:DURATION (linear:30s, exponential:1m), from --ramp-up-start-rps to the level's rate; the warm-ups are the ramp's arrivals (instead of --warmup)")
	fl.StringVar(&f.fixedSchedule, "fixed-schedule", "", "open loop: send the measured requests at a trace's offsets, one line each in seconds from the level's start (instead of --request-rate: one level at their mean rate); its SHA-256 and offsets go in run.json; docs/protocol.md \"Fixed schedule\"")
	fl.BoolVar(&f.findRate, "find-rate", false, "open loop: search for the highest rate that keeps up and meets --slo, from the one --request-rate given (double while it passes, then bisect); one target, one --requests count of at least 30; docs/protocol.md \"Rate search\"")
	fl.Float64Var(&f.findRatePrecision, "find-rate-precision", 0.1, "with --find-rate: end when the highest passing and lowest failing rates are within this share of the first (0.1: 10 %)")
	fl.IntVar(&f.findRateMaxLevels, "find-rate-max-levels", 10, "with --find-rate: the most levels the search offers")
	fl.Float64Var(&f.rampUpStart, "ramp-up-start-rps", 1, "open loop: the --ramp-up's rate at its start, in requests per second (above 0 for exponential)")
	fl.StringVar(&f.requests, "requests", "", "measured requests per level and repeat: N, or one per level")
	fl.StringVar(&f.duration, "duration", "", "open loop: measured time per level and repeat (30s, 2m; or one per level): rate × duration requests, instead of --requests")
	fl.IntVar(&f.passes, "passes", 0, "measured requests per level: P passes over the corpus")
	f.warmup = -1
	fl.Var((*unsetInt)(&f.warmup), "warmup", "warm-up requests per level and repeat (default: one per worker)")
	fl.IntVar(&f.repeats, "repeats", bench.DefaultRepeats, "repeats of every level and target")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the variants' sample indices (default: a fresh random one per run, recorded in run.json)")
	fl.StringVar(&f.language, "language", "", "language form field (e.g. en)")
	fl.StringVar(&f.format, "response-format", "json", "response_format form field: json, verbose_json, diarized_json, text, srt or vtt (a subtitle is scored by its cues' text)")
	fl.StringArrayVar(&f.forms, "form", nil, "an extra form field as key=value (NAME:key=value for target NAME alone); repeat for several")
	fl.DurationVar(&f.timeout, "timeout", bench.DefaultTimeout, "limit per request")
	fl.StringVar(&f.apiKey, "api-key", "", "bearer token (default $OPENAI_API_KEY); never recorded")
	fl.StringVarP(&f.out, "out", "o", "", "run directory to create (must not exist)")
	fl.BoolVar(&f.noPerturb, "no-perturb", false, "send the clips unchanged (recorded; only to demonstrate caches)")
	fl.BoolVar(&f.cacheProbe, "cache-probe", false, fmt.Sprintf("after the sweep, probe each target's cache: %d pairs of one clip's identical bytes vs its 1-LSB variants + %d warm-ups = %d requests, one at a time (default: on with two or more targets)", claims.ProbePairs, claims.ProbeWarmup, 2*claims.ProbePairs+claims.ProbeWarmup))
	fl.BoolVar(&f.noCacheProbe, "no-cache-probe", false, "make no cache probe")
	fl.BoolVar(&f.stream, "stream", false, "stream=true: time to first text delta over SSE")
	fl.StringVar(&f.normalizer, "normalizer", "", "text normalizer for WER: whisper-en, basic, zh, none (default whisper-en; zh for --language zh)")
	fl.StringVar(&f.aligner, "aligner", "unit", "aligner for WER: unit or sclite")
	fl.BoolVar(&f.failuresAsDeletions, "failures-as-deletions", false, "score failed requests as empty transcripts instead of leaving them out")
	fl.BoolVar(&f.redactHost, "redact-host", false, "write [REDACTED] instead of this machine's hostname")
	fl.StringArrayVar(&f.gpus, "gpu", nil, "GPUs of a target as NAME=0,1 (NVML indices), sampled during its steps; repeat per target")
	fl.DurationVar(&f.sampleInterval, "sample-interval", fingerprint.DefaultSampleInterval, "how often GPUs and the host are sampled")
	fl.StringArrayVar(&f.launch, "launch", nil, "start a target's server as NAME='command' (needs --target NAME=URL; stopped at the end)")
	fl.DurationVar(&f.readyTimeout, "ready-timeout", fingerprint.DefaultReadyTimeout, "how long a launched server may take to answer /health or /v1/models")
	fl.DurationVar(&f.stopGrace, "stop-grace", session.DefaultStopGrace, "time between SIGTERM and SIGKILL when stopping a launched server")
	fl.StringArrayVar(&f.launchCmd, "launch-cmd", nil, "how a server started elsewhere was launched, as NAME='text' (recorded, redacted)")
	fl.StringArrayVar(&f.launchLog, "launch-log", nil, "log of a server started elsewhere, as NAME=FILE (copied in, redacted)")
	fl.StringArrayVar(&f.serverConfigs, "server-config", nil, "a config file of a server, as NAME=FILE (copied into servers/NAME/config/, redacted); repeatable")
	fl.StringVar(&f.seal, "seal", "", "after a complete run, seal it into `OUT`.tar.zst (as 'benchseal seal')")
	fl.StringVar(&f.key, "key", "", "with --seal: sign with `KEY` (a key file or KMS reference; default an ephemeral key)")
	compatFlag(cmd, &f.compat, "run the peer's schedule (one warm-up pass before repeat 1, one pass per repeat) and print the figures")
	fl.BoolVar(&f.allowUnlistedModel, "allow-unlisted-model", false, "request --model even where /v1/models does not list it (servers that ignore the field)")
	addEventsFlags(fl, &f.eventsFlags)
	addRoundTripFlags(fl, &f.roundTripFlags)
	addTSAFlags(fl, &f.tsaFlags, "pre-register the run: time-stamp its plan (plan.json) at this RFC 3161 authority `URL` before the first request, and the seal at the end (needs --seal)")
	fl.StringVar(&f.log, "log", "", "with --tsa: also enter the plan, signed by --key, in this Rekor v1 transparency log `URL` before the first request, so that a search by the key lists every plan registered")
	fl.StringVar(&f.logKey, "log-key", "", "the log's public key (PEM) the entry must verify with (default: the key the log serves, sealed unpinned)")
	return cmd
}

func runRun(cmd *cobra.Command, e *env, f *runFlags) (err error) {
	if !cmd.Flags().Changed("seed") {
		if f.seed, err = bench.NewSeed(); err != nil {
			return err
		}
	}
	if f.task != "" && f.task != task.DefaultName && !cmd.Flags().Changed("response-format") {
		f.format = "" // the default json is ASR's: another task's server picks its own
	}
	plan, err := buildPlan(e, f)
	if err != nil {
		return err
	}
	if err := checkCompat(f.compat); err != nil {
		return err
	}
	if compatSchedules(f.compat) {
		compatPreset(&plan, f)
	}
	setup, err := parseServerSetup(f, plan.Targets)
	if err != nil {
		return err
	}
	events, err := parseServerEvents(&f.eventsFlags, plan.Targets)
	if err != nil {
		return err
	}
	if f.sampleInterval <= 0 {
		return usageErrorf("--sample-interval %v: must be positive", f.sampleInterval)
	}
	if f.readyTimeout <= 0 || f.stopGrace <= 0 {
		return usageErrorf("--ready-timeout and --stop-grace must be positive")
	}
	if err := checkRunSeal(f); err != nil {
		return err
	}
	rt, err := f.roundTrip(plan.Task.Name(), e.stderr)
	if err != nil {
		return err
	}
	signer, err := runSigner(cmd.Context(), e, f)
	if err != nil {
		return err
	}
	prereg, err := f.preregister(signer)
	if err != nil {
		return err
	}
	// Refuse an existing --out before starting any server for nothing
	// (bench.Run checks again).
	if _, err := os.Lstat(f.out); err == nil {
		return runError(&bench.OutExistsError{Path: f.out})
	}
	key, tool, tty := clientSetup(e, f.apiKey)

	defer drainOnInterrupt(e)()

	ctx := cmd.Context()
	names := make([]string, len(plan.Targets))
	for i, t := range plan.Targets {
		names[i] = t.Name
	}
	sess, err := session.Start(ctx, session.Config{Out: f.out, Plan: plan, Servers: *setup,
		APIKey: key, Tool: tool, Timeout: f.timeout, Progress: bench.NewProgress(e.stderr, tty),
		AllowUnlistedModel: f.allowUnlistedModel, RedactHost: f.redactHost, SampleInterval: f.sampleInterval,
		ReadyTimeout: f.readyTimeout, StopGrace: f.stopGrace, Infof: e.infof, Warnf: e.warnf, Events: events,
		Preregister: prereg, RoundTrip: rt})
	// Launched servers are stopped whatever happens, and their launch.json
	// written once they have exited.
	defer sess.Stop()
	if err != nil {
		return fmt.Errorf("run: %w", launchError(ctx, otlpListenError(err, f.otlpListen)))
	}
	res, err := sess.Run(ctx)
	var se *bench.TargetStoppedError
	switch {
	case err != nil && res == nil && ctx.Err() != nil:
		// Ctrl-C before the sweep (preflight): not a target's fault.
		infof(e.stderr, "interrupted before measuring")
		return errInterrupted
	case errors.Is(err, bench.ErrInterrupted):
		summarizeSteps(e, names, res.Steps, len(res.Run.Protocol.Levels)*res.Run.Protocol.Repeats, se)
		infof(e.stderr, "kept what was measured in %s (run marked incomplete)", res.Dir)
		writeRunReport(e, res.Dir)
		if f.seal != "" {
			warnf(e.stderr, "--seal: an interrupted run is not sealed (to seal it anyway: %s)", sealCommand(res.Dir, f.seal, f.key, true))
		}
		return errInterrupted
	case errors.As(err, &se) && res != nil:
		summarizeSteps(e, names, res.Steps, len(res.Run.Protocol.Levels)*res.Run.Protocol.Repeats, se)
		infof(e.stderr, "kept what was measured in %s (run marked incomplete)", res.Dir)
		if f.seal != "" {
			warnf(e.stderr, "--seal: an incomplete run is not sealed (to seal it anyway: %s)", sealCommand(res.Dir, f.seal, f.key, true))
		}
		hint := stoppedHint(se, res.Dir)
		if len(se.Unreachable) > 0 {
			hint = strings.TrimPrefix(hint+"; the server stopped answering in the middle of a step (killed, crashed or restarted?): the failed requests' errors are in their records", "; ")
			for t := range se.Unreachable {
				if _, launched := setup.Launch[t]; launched && len(se.Targets) == 0 {
					hint += "; see servers/<target>/launch.log in " + res.Dir + " for why it stopped"
					break
				}
			}
		}
		return withHint(fmt.Errorf("run: %w", err), "%s", hint)
	case err != nil:
		return runError(err)
	}
	writeRunReport(e, res.Dir)
	infof(e.stderr, "run written to %s", res.Dir)
	if err := summarizeSteps(e, names, res.Steps, len(res.Run.Protocol.Levels)*res.Run.Protocol.Repeats, se); err != nil {
		if f.seal != "" {
			warnf(e.stderr, "--seal: a run with failed steps is not sealed (to seal it anyway: %s)", sealCommand(res.Dir, f.seal, f.key, false))
		}
		return err
	}
	if err := summarizeAttempts(e, res); err != nil {
		if f.seal != "" {
			warnf(e.stderr, "--seal: a run whose closed loop stalled is not sealed (to seal it anyway: %s)", sealCommand(res.Dir, f.seal, f.key, false))
		}
		return err
	}
	if f.compat != "" {
		if err := printCompat(e, res.Dir, f.compat, false); err != nil {
			return err
		}
	}
	if f.seal == "" {
		return nil
	}
	if err := sealRun(ctx, e, res.Dir, f.seal, f.key, signer, &f.tsaFlags); err != nil {
		return withHint(err, "the run is kept in %s; finish with: %s", res.Dir, sealCommand(res.Dir, f.seal, f.key, false))
	}
	return nil
}

// runError words the runner's errors and attaches hints.
func runError(err error) error {
	var (
		pe *bench.PlanError
		te *bench.TargetError
		me *bench.ModelError
		ue *bench.UnknownModelError
		oe *bench.OutExistsError
		ce *bench.CorpusError
		be *bench.VariantBudgetError
	)
	switch {
	case errors.As(err, &pe):
		return &usageError{err}
	case errors.As(err, &te):
		return withHint(err, "start the server, or fix --target %s=URL (the base URL, without /v1)", te.Target)
	case errors.As(err, &ue):
		return unknownModelError(ue)
	case errors.As(err, &me):
		return withHint(err, "name the model with --model %s=MODEL", me.Target)
	case errors.As(err, &oe):
		return withHint(fmt.Errorf("run: %w", err), "choose a new --out directory")
	case errors.As(err, &ce):
		return corpusError(err)
	case errors.As(err, &be):
		return withHint(err, "use longer clips, more clips or fewer requests")
	}
	return fmt.Errorf("run: %w", err)
}

func buildPlan(e *env, f *runFlags) (bench.Plan, error) {
	var p bench.Plan
	if f.out == "" {
		return p, usageErrorf("--out is required: the run directory to create")
	}
	if len(f.targets) == 0 {
		return p, usageErrorf("--target NAME=URL is required")
	}
	if (f.audio == "") == (f.corpus == "") {
		return p, usageErrorf("give exactly one of --audio FILE and --corpus PATH")
	}
	tk, err := task.Named(f.task)
	if err != nil {
		return p, usageErrorf("--task %q: want one of %s", f.task, strings.Join(task.Names(), ", "))
	}
	p.Task = tk
	if _, ok := tk.(task.Sessioner); ok {
		if f.realtimeChunkMs < 1 || f.realtimeChunkMs > 10000 || !(f.realtimeSpeed > 0 && f.realtimeSpeed <= 100) {
			return p, usageErrorf("--realtime-chunk-ms must be 1 to 10000 and --realtime-speed above 0, at most 100")
		}
		p.Realtime = &schemas.Realtime{ChunkMs: f.realtimeChunkMs, Speed: f.realtimeSpeed, LateMs: task.DefaultLateMs}
	} else if f.realtimeChunkMs != task.DefaultChunkMs || f.realtimeSpeed != 1 {
		return p, usageErrorf("--realtime-chunk-ms and --realtime-speed are for --task realtime")
	}
	if f.requests != "" && f.passes != 0 {
		return p, usageErrorf("give --requests or --passes, not both")
	}
	if rf, ok := tk.(task.Formatter); ok {
		if err := checkResponseFormat(f.format, rf.ResponseFormats()); err != nil {
			return p, err
		}
	}
	targets, err := bench.Targets(trimV1(e, f.targets), f.models, f.forms, f.language, f.format)
	if err != nil {
		return p, settingUsage(err)
	}
	p.Targets = targets
	warnSharedURLs(e, p.Targets)
	if f.percentiles != "" {
		if p.Percentiles, err = parsePercentiles(f.percentiles); err != nil {
			return p, err
		}
	}
	if f.slo != "" {
		if p.SLO, err = parseSLO(f.slo); err != nil {
			return p, err
		}
	}
	open := f.requestRate != "" || f.fixedSchedule != ""
	var levels []int
	var durations []time.Duration // --duration: the requests follow from each rate
	if f.duration != "" && !open {
		return p, usageErrorf("--duration needs --request-rate (a closed loop counts requests: --requests)")
	}
	if open {
		if f.concurrency != defaultConcurrency {
			return p, usageErrorf("give --request-rate or --concurrency, not both")
		}
		if f.fixedSchedule != "" {
			if err := readFixedSchedule(f, &p); err != nil {
				return p, err
			}
		} else if p.Rates, err = rateList(f.requestRate); err != nil {
			return p, err
		}
		k, err := strconv.ParseFloat(f.burstiness, 64)
		if err != nil || !(k > 0) || math.IsInf(k, -1) {
			return p, usageErrorf("--burstiness %q: want a positive number or inf", f.burstiness)
		}
		if f.maxConcurrency < 0 {
			return p, usageErrorf("--max-concurrency %d: must be at least 0", f.maxConcurrency)
		}
		p.Burstiness, p.MaxConcurrency = k, f.maxConcurrency
		if f.findRate {
			if len(p.Rates) != 1 {
				return p, usageErrorf("--find-rate starts from one --request-rate (%d given)", len(p.Rates))
			}
			if f.duration != "" || f.tsa != "" {
				return p, usageErrorf("--find-rate chooses its rates as it goes: give --requests, not --duration, and no --tsa (a pre-registered plan lists its rates)")
			}
			p.Search = &claims.RateSearch{Start: p.Rates[0], Precision: f.findRatePrecision, MaxLevels: f.findRateMaxLevels}
		}
		if f.rampUp != "" {
			if p.Ramp, err = parseRamp(f.rampUp, f.rampUpStart, p.Rates); err != nil {
				return p, err
			}
			if f.warmup >= 0 {
				return p, usageErrorf("--ramp-up sets the warm-ups (the ramp's arrivals): give no --warmup")
			}
		}
		if f.duration != "" {
			if f.requests != "" || f.passes != 0 {
				return p, usageErrorf("give one of --duration, --requests and --passes")
			}
			if durations, err = durationList(f.duration, len(p.Rates)); err != nil {
				return p, err
			}
		}
		for _, r := range p.Rates {
			levels = append(levels, int(math.Ceil(r))) // the default requests: 8 s of load
		}
	} else {
		if f.burstiness != "1" || f.maxConcurrency != 0 || f.rampUp != "" || f.findRate {
			return p, usageErrorf("--burstiness, --max-concurrency, --ramp-up and --find-rate need --request-rate")
		}
		if levels, err = intList("--concurrency", f.concurrency, 1); err != nil {
			return p, err
		}
		p.Levels = levels
	}
	if f.audio != "" {
		c, err := bench.LoadClip(f.audio)
		if err != nil {
			return p, runError(err)
		}
		p.Corpus = []bench.Clip{c}
	} else {
		var clips []bench.Clip
		if f.audioColumn != "" || f.textColumn != "" {
			if task.WordsOf(tk).Texts {
				return p, usageErrorf("--audio-column and --text-column name a .parquet clip corpus's columns: --task %s reads a text corpus", tk.Name())
			}
			if !strings.EqualFold(filepath.Ext(f.corpus), ".parquet") {
				return p, usageErrorf("--audio-column and --text-column name a .parquet corpus's columns: --corpus %s is not a .parquet file", f.corpus)
			}
			clips, err = task.LoadWAVCorpusWith(f.corpus, task.CorpusOptions{AudioColumn: f.audioColumn, TextColumn: f.textColumn})
		} else {
			clips, err = tk.LoadCorpus(f.corpus)
		}
		if err != nil && !corpusPathError(err, f.corpus) {
			return p, runError(err)
		}
		if err != nil && task.WordsOf(tk).Texts {
			return p, withHint(runError(err), "--task %s's --corpus is a text corpus: a .jsonl of {\"id\", \"text\", \"voice\", \"ref_audio\" (a 1-30 s WAV), \"ref_text\"}, a SeedTTS meta.lst or a plain text file, one utterance a line (docs/tts.md)", tk.Name())
		}
		if err != nil {
			return p, withHint(runError(err), "--corpus takes a folder of .wav, .flac or .mp3 files (+ same-named .txt), a LibriSpeech folder (*.trans.txt per chapter), a .jsonl manifest of {\"id\", \"audio\", \"text\", \"language\"}, a Common Voice .tsv (path, sentence), a .parquet file (--audio-column, --text-column) or a SeedTTS meta.lst")
		}
		p.Corpus = clips
	}
	var requests []int
	if durations != nil {
		requests = bench.OpenRequests(p.Rates, durations)
	}
	if p.Fixed != nil {
		requests = []int{len(p.Fixed)}
	}
	if f.requests != "" {
		if requests, err = intList("--requests", f.requests, 1); err != nil {
			return p, err
		}
	}
	if p.Requests, err = bench.RequestCounts(levels, requests, f.passes, len(p.Corpus)); err != nil {
		return p, settingUsage(err)
	}
	p.Passes = max(f.passes, 0)
	if !open {
		warnShortLevels(e, levels, p.Requests)
	}
	if f.warmup >= 0 {
		p.Warmup = []int{f.warmup}
	}
	if f.repeats < 1 {
		return p, usageErrorf("--repeats %d: must be at least 1", f.repeats)
	}
	if f.timeout <= 0 {
		return p, usageErrorf("--timeout %v: must be positive", f.timeout)
	}
	p.Repeats, p.Seed, p.NoPerturb, p.Stream = f.repeats, f.seed, f.noPerturb, f.stream
	if f.cacheProbe && f.noCacheProbe {
		return p, usageErrorf("--cache-probe and --no-cache-probe: give one")
	}
	if f.cacheProbe || (!f.noCacheProbe && len(p.Targets) >= 2) {
		p.CacheProbe = claims.ProbePairs
		if !f.cacheProbe && p.Corpus[0].NoInput() {
			// The default probe needs the first item's reference clip.
			p.CacheProbe = 0
			infof(e.stderr, "no cache probe: its first item %q has no reference clip (a named voice) to send identical and as variants; put an item with ref_audio first to probe", p.Corpus[0].ID)
		}
	}
	if p.Scoring, err = bench.Scoring(f.normalizer, f.aligner, f.language, f.failuresAsDeletions); err != nil {
		return p, settingUsage(err)
	}
	p.Command = fingerprint.RedactArgs(append([]string{"benchseal"}, e.args...))
	infof(e.stderr, "%s", corpusLine(p.Task.Name(), p.Corpus))
	if f.noPerturb {
		warnf(e.stderr, "--no-perturb: every request of a clip sends the same bytes; caches can answer them (recorded in run.json)")
	}
	return p, nil
}

// warnShortLevels warns, before anything is measured, of each level whose
// measured requests are fewer than claims.SteadyRequestsPerWorker per
// worker: its window is likely to be mostly ramp and drain, which check 7
// and the report then call "not at steady state", with no verdict.
func warnShortLevels(e *env, levels, requests []int) {
	for i, c := range levels {
		n := requests[min(i, len(requests)-1)]
		if want := claims.SteadyRequestsPerWorker * c; c > 1 && n < want {
			warnf(e.stderr, "c=%d: %d measured requests, fewer than %d per worker: the window may never reach steady state (all %d workers busy), and a level short of it gets no verdict; give --requests %d or more", c, n, claims.SteadyRequestsPerWorker, c, want)
		}
	}
}

// settingUsage words a refused setting of bench (a *bench.SettingError or
// a *score.OptionError) with its flag.
func settingUsage(err error) error {
	var (
		se *bench.SettingError
		oe *score.OptionError
	)
	switch {
	case errors.As(err, &oe):
		return usageErrorf("--%s %q: want %s or %s", oe.Option, oe.Value, strings.Join(oe.Valid[:len(oe.Valid)-1], ", "), oe.Valid[len(oe.Valid)-1])
	case !errors.As(err, &se):
		return err
	case se.Err == bench.ErrReservedField:
		return usageErrorf("--form %s: benchseal sets this field itself (use --model or --stream)", se.Value)
	case se.Err == bench.ErrNoSuchTarget:
		return usageErrorf("--model %q: no --target named %q", se.Value, se.Target)
	case se.Err == bench.ErrAtLeastOne:
		return usageErrorf("--%s %s: must be at least 1", se.Setting, se.Value)
	}
	return usageErrorf("--%s %q: %v", se.Setting, se.Value, se.Err)
}

const defaultConcurrency = "1,16,32,64,128"

// parseSLO reads --slo: e2e=D and/or ttfb=D, each a positive duration.
func parseSLO(s string) (*schemas.SLO, error) {
	slo := &schemas.SLO{}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		d, err := time.ParseDuration(val)
		if !ok || err != nil || d <= 0 {
			return nil, usageErrorf("--slo %q: want e2e=DURATION and/or ttfb=DURATION, comma-separated (e.g. e2e=500ms,ttfb=200ms)", s)
		}
		secs := d.Seconds()
		switch name {
		case "e2e":
			slo.E2ES = &secs
		case "ttfb":
			slo.TTFBS = &secs
		default:
			return nil, usageErrorf("--slo %q: unknown limit %q (e2e, ttfb)", s, name)
		}
	}
	return slo, nil
}

// rateList reads --request-rate: positive, finite requests per second.
func rateList(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			return nil, usageErrorf("--request-rate %q: want comma-separated positive numbers of requests per second", s)
		}
		out = append(out, r)
	}
	return out, nil
}

func intList(flag, s string, minimum int) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < minimum {
			return nil, usageErrorf("%s %q: want comma-separated whole numbers of at least %d", flag, s, minimum)
		}
		out = append(out, n)
	}
	return out, nil
}

// unsetInt is an int flag whose default (-1, "not given") is not printed, so
// --help can say what the default means instead of showing -1.
type unsetInt int

func (v *unsetInt) String() string {
	if *v < 0 {
		return ""
	}
	return strconv.Itoa(int(*v))
}

func (v *unsetInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a whole number >= 0, got %q", s)
	}
	*v = unsetInt(n)
	return nil
}

func (v *unsetInt) Type() string { return "int" }

// clientSetup settles what run and replay share about the client: the API
// key (--api-key, else OPENAI_API_KEY), the client's identity, and whether
// progress goes to a terminal.
func clientSetup(e *env, apiKey string) (key string, tool schemas.Tool, tty bool) {
	key = apiKey
	if key == "" {
		key = e.getenv("OPENAI_API_KEY")
	}
	tool, err := fingerprint.Tool()
	if err != nil {
		warnf(e.stderr, "client identity: %v", err)
	}
	if fd, ok := e.stderr.(interface{ Fd() uintptr }); ok {
		tty = term.IsTerminal(int(fd.Fd()))
	}
	return key, tool, tty
}

// drainOnInterrupt handles the signals of a measuring command: the root's
// context is cancelled by the first interrupt (requests in flight drain);
// a second one ends the process at once with exit status 130, after
// SIGKILL to every server it launched.
func drainOnInterrupt(e *env) (stop func()) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		n := 0
		for range sig {
			n++
			if n == 1 {
				infof(e.stderr, "interrupted: letting requests in flight finish (Ctrl-C again to exit at once)")
				continue
			}
			infof(e.stderr, "interrupted again: exiting now")
			// Launched servers are in their own process groups: the
			// terminal's Ctrl-C never reached them.
			if n := fingerprint.KillLaunched(); n > 0 {
				infof(e.stderr, "killed (SIGKILL) the process groups of %d launched server(s)", n)
			}
			os.Exit(exitInterrupted)
		}
	}()
	return func() { signal.Stop(sig) }
}

// writeRunReport writes REPORT.md into a finished (or interrupted) run
// directory, so the bundle sealed from it carries its own human-readable
// summary (docs/bundle.md). The report is a convenience, never
// evidence: failing to write it is a warning, and it never replaces a file.
func writeRunReport(e *env, dir string) {
	in, err := loadReportDir(e, dir)
	in.Records = nil // rendered as verify regenerates it (renderRunReport): without the records
	if err == nil {
		var f *os.File
		if f, err = newfile.Create(filepath.Join(dir, schemas.ReportFile), 0o644); err == nil {
			err = report.Markdown(f, in)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		warnf(e.stderr, "REPORT.md not written: %v (benchseal report %s makes it later)", err, dir)
	}
}

// warnSharedURLs warns about targets given one server URL: they measure
// the same server twice, sharing its cache and its queue.
func warnSharedURLs(e *env, targets []bench.Target) {
	byURL := map[string][]string{}
	var urls []string
	for _, t := range targets {
		u := strings.TrimRight(t.URL, "/")
		if byURL[u] == nil {
			urls = append(urls, u)
		}
		byURL[u] = append(byURL[u], t.Name)
	}
	for _, u := range urls {
		if names := byURL[u]; len(names) > 1 {
			e.warnf("targets %s have one URL (%s): they measure the same server %d times, and share its cache and its queue", strings.Join(names, " and "), fingerprint.Redact(u), len(names))
		}
	}
}

// parsePercentiles reads --percentiles: a comma-separated list of
// percentiles, each a number from 0 to 100 given once, kept in order.
func parsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "p"))
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return nil, usageErrorf("--percentiles %q: %q is not a percentile from 0 to 100", s, part)
		}
		if slices.Contains(out, v) {
			return nil, usageErrorf("--percentiles %q: %g is given twice", s, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseRamp reads --ramp-up STRATEGY:DURATION with its start rate, held
// to every level's rate.
func parseRamp(v string, start float64, rates []float64) (*schedule.Ramp, error) {
	strategy, dur, ok := strings.Cut(v, ":")
	d, err := time.ParseDuration(dur)
	if !ok || err != nil {
		return nil, usageErrorf("--ramp-up %q: want STRATEGY:DURATION (linear:30s, exponential:1m)", v)
	}
	r := &schedule.Ramp{Strategy: strategy, Start: start, Duration: d}
	for _, rate := range rates {
		if err := r.Check(rate); err != nil {
			return nil, usageErrorf("--ramp-up %s, --ramp-up-start-rps %v: %v", v, start, err)
		}
	}
	return r, nil
}

// readFixedSchedule reads --fixed-schedule into p: its offsets, their
// mean rate as the one level's, the file's SHA-256. It leaves no room for
// the flags that say the same thing another way.
func readFixedSchedule(f *runFlags, p *bench.Plan) error {
	switch {
	case f.requestRate != "":
		return usageErrorf("--fixed-schedule sets the level's sends: give no --request-rate")
	case f.duration != "" || f.requests != "" || f.passes != 0:
		return usageErrorf("--fixed-schedule's lines are the measured requests: give no --duration, --requests or --passes")
	case f.burstiness != "1" || f.rampUp != "" || f.findRate:
		return usageErrorf("--fixed-schedule's offsets are the trace's: no --burstiness, --ramp-up or --find-rate")
	}
	file, err := os.Open(f.fixedSchedule)
	if err != nil {
		return usageErrorf("--fixed-schedule: %v", unwrapPath(err))
	}
	defer file.Close()
	offs, sha, err := schedule.ReadFixed(file)
	if err != nil {
		return usageErrorf("--fixed-schedule %s: %v", f.fixedSchedule, err)
	}
	p.Fixed, p.FixedSHA256, p.Rates = offs, sha, []float64{schedule.FixedRate(offs)}
	return nil
}
