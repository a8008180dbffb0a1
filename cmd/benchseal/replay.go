package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/cobra"
)

func init() { register(newReplayCmd) }

type replayFlags struct {
	targets, only, gpus []string
	key, audio, out     string
	tolerance           string
	werTolerance        float64
	apiKey              string
	timeout             time.Duration
	seed                uint64
	sameVariants        bool
	allowUnlistedModel  bool
	forms               []string
	asJSON, redactHost  bool
	sampleInterval      time.Duration
	launch              replayLaunchFlags // replay_launch.go
	seal, sealKey       string            // replay_seal.go
	eventsFlags                           // --otlp-listen, --otlp-wait, --server-events (run_events.go)
	roundTripFlags                        // --asr-target, --asr-model (run_roundtrip.go)
}

func newReplayCmd(e *env) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay BUNDLE.tar.zst|RUNDIR --out DIR",
		Short: "re-run a sealed run's protocol against live servers and compare with its claims",
		Long: `replay reads a sealed run (a bundle, through the hardened reader; or a run
directory) and runs its protocol again against live servers: the same levels,
requests, warm-ups, repeats, perturbation, streaming, scoring, targets
(name, model, request fields) in the same order, and the same clips. It then
compares the replay's claims with the sealed ones.

A bundle's signature is checked with --key, or without it with the key the
bundle carries (a warning: the signer is unpinned); a bundle whose signature or
file digests do not hold is refused. The clips come from the bundle's
inputs/<sha256>.wav; a bundle sealed with --no-audio needs --audio DIR with the
original clips, matched by SHA-256.

Each target is sent to the URL run.json names unless --target NAME=URL points it
elsewhere; --only NAME replays some targets only. The replay is a new run
directory (--out, which must not exist) like any other, with env/, telemetry/
and servers/ captures; its run.json names the sealed run in replay_of.

--launch starts each target's server the way the sealed run did, from the
bundle alone: the launch command run --launch recorded (run.json's
launch_command), then waits, logs and stops it as run --launch does
(--ready-timeout, --stop-grace; servers/NAME/launch.log and launch.json).
A value redacted when sealed (HF_TOKEN=[REDACTED], --api-key [REDACTED]) is
given again with --env KEY=VALUE, KEY the variable or flag it follows
(HF_TOKEN=..., api-key=...; never recorded): until each is, the replay is
refused, naming them. --launch=NAME=CMD (with '=') starts NAME with CMD
instead. A server whose URL's address already accepts connections is not
started (the replay would measure whatever answers there); --target moves
where the replay looks, not where a sealed command listens.

Before measuring, the replay compares its environment with the sealed run's:
per target the engine and its version, the model and its revision, the
launch command (one substituted with --launch=NAME=CMD differs, "overridden
with --launch"), the server knobs (served, declared or absent, read as verify's fairness check
reads them); per machine the GPU model, driver, count and memory (NVML) and
the host's cores. Each item is same, differs or not observed (saying what
was missing), printed as a table on stderr and written to
env/replay-diff.json. On other hardware (GPU model, count or memory, host
cores) a figure beyond the tolerance is NOT-COMPARABLE, not DIFF: it is
neither reproduced nor contradicted, and the replay exits 1.

The comparison sets the median over repeats of req_per_s, rtfx, latency_p50_s,
latency_p99_s, wer, succeeded and failed side by side, per target and level,
OK within the tolerance and DIFF beyond it. req_per_s, rtfx and the latencies
are judged as a ratio, the same both ways: a figure differs when the larger
value exceeds the smaller by more than the tolerance (--tolerance 10%: 100 vs
111 differs, as 111 vs 100 does; a fall to a tenth differs even under 200%).
succeeded and failed move by a share of the level's requests (at most
--tolerance of them); wer is compared in percentage points against
--wer-tolerance. A sealed run that made a cache probe (run.json's
protocol.cache_probe) has it re-run, and both verdicts are printed side by side
after the figures ("probes" in --json); they do not count in the exit status.
--json prints the comparison as JSON. Exit status 0 when every
figure agrees, 1 when one differs (or the replay failed); the first Ctrl-C keeps
what was measured (exit status 130).

A replay sends only variants the sealed run never sent: under the same seed,
each clip's variants are numbered from a random point past the highest number
in the sealed records (recorded in run.json, replay_of.first_variant), and the
plan is a permutation, so none of the sealed run's variants comes back and no
cache that saw them can answer; two replays share variants only when their
random ranges overlap. --same-variants sends the
sealed run's variants again (to test a server's determinism, say); --seed N
uses another seed (whose variants may meet a few of the sealed ones by
chance).

--otlp-listen, --otlp-wait and --server-events collect the servers'
per-request evidence as run does (see 'benchseal run --help'); a replay of a
run that holds such evidence of a target and collects none of it warns,
naming the flag.`,
		Example: `  benchseal replay qwen3-asr.tar.zst --key team.pub --out runs/replay
  benchseal replay qwen3-asr.tar.zst --key team.pub --target vllm=http://10.0.0.5:8000 --only vllm --out runs/replay-vllm
  benchseal replay no-audio.tar.zst --key team.pub --audio clips/ --tolerance 20% --json --out runs/replay
  benchseal replay qwen3-asr.tar.zst --key team.pub --launch --env HF_TOKEN=hf_... --out runs/replay-launched
  benchseal replay qwen3-asr.tar.zst --key team.pub --launch='vllm=vllm serve Qwen/Qwen3-ASR-1.7B --port 8000' --out runs/replay-mine`,
		Args: replayArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, e, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.targets, "target", nil, "send target NAME of the sealed run to URL instead, as NAME=URL; repeatable")
	fl.StringArrayVar(&f.only, "only", nil, "replay only target NAME (repeatable; default every target)")
	fl.StringVar(&f.key, "key", "", "public key (file or KMS reference) the bundle must be signed with")
	fl.StringVar(&f.audio, "audio", "", "folder of the original clips, for a bundle sealed with --no-audio")
	fl.StringVarP(&f.out, "out", "o", "", "run directory of the replay to create (must not exist)")
	fl.StringVar(&f.tolerance, "tolerance", "10%", "a figure differs when the larger value exceeds the smaller by more than this, e.g. 10%")
	fl.Float64Var(&f.werTolerance, "wer-tolerance", claims.DefaultTolerance.QualityPoints, "largest change of wer that still agrees, in percentage points")
	fl.StringVar(&f.apiKey, "api-key", "", "bearer token (default $OPENAI_API_KEY); never recorded")
	fl.DurationVar(&f.timeout, "timeout", 0, "limit per request (default: the sealed run's)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the variants' sample indices (default: the sealed run's, variants numbered from a random point past its)")
	fl.StringArrayVar(&f.forms, "form", nil, "set a form field of every replayed target as key=value (for values redacted when sealed; never recorded)")
	fl.BoolVar(&f.sameVariants, "same-variants", false, "send the sealed run's variants again, which a cache may recognise")
	fl.BoolVar(&f.allowUnlistedModel, "allow-unlisted-model", false, "request the sealed model even where /v1/models does not list it (servers that ignore the field)")
	fl.BoolVar(&f.asJSON, "json", false, "print the comparison as JSON")
	fl.StringArrayVar(&f.gpus, "gpu", nil, "GPUs of a target as NAME=0,1 (NVML indices), sampled during its steps (default: the sealed run's)")
	fl.DurationVar(&f.sampleInterval, "sample-interval", fingerprint.DefaultSampleInterval, "how often GPUs and the host are sampled")
	fl.BoolVar(&f.redactHost, "redact-host", false, "write [REDACTED] instead of this machine's hostname")
	addReplayLaunchFlags(fl, &f.launch)
	addEventsFlags(fl, &f.eventsFlags)
	fl.StringVar(&f.asrTarget, "asr-target", "", "a tts run's round trip: hear the produced audio with this ASR server, as NAME=URL (default: the sealed run's, from roundtrip/asr.json)")
	fl.StringVar(&f.asrModel, "asr-model", "", "with --asr-target: the model to ask it for (default: the sealed run's, else the one it lists)")
	replaySealFlags(cmd, &f)
	return cmd
}

// parsePercent reads "10%" or "10" as 0.10.
func parsePercent(flag, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, usageErrorf("%s %q: want a percentage such as 10%%", flag, s)
	}
	return v / 100, nil
}

// percentText words a fraction as parsePercent read it: 0.1 is "10 %",
// whether it was given as 10 or 10%.
func percentText(v float64) string { return fmt.Sprintf("%.6g %%", v*100) }

func runReplay(cmd *cobra.Command, e *env, f *replayFlags, src string) error {
	if f.out == "" {
		return usageErrorf("--out is required: the run directory of the replay to create")
	}
	rel, err := parsePercent("--tolerance", f.tolerance)
	if err != nil {
		return err
	}
	if f.werTolerance < 0 {
		return usageErrorf("--wer-tolerance %v: must be at least 0", f.werTolerance)
	}
	tol := claims.Tolerance{Relative: rel, QualityPoints: f.werTolerance, Figures: true}
	if cmd.Flags().Changed("timeout") && f.timeout <= 0 {
		return usageErrorf("--timeout %v: must be positive", f.timeout)
	}
	if f.sampleInterval <= 0 {
		return usageErrorf("--sample-interval %v: must be positive", f.sampleInterval)
	}
	if f.audio != "" {
		if st, err := os.Stat(f.audio); err != nil || !st.IsDir() {
			return usageErrorf("--audio %s: not a directory", f.audio)
		}
	}
	if _, err := os.Lstat(f.out); err == nil {
		return runError(&bench.OutExistsError{Path: f.out})
	}
	ctx := cmd.Context()
	signer, err := prepareReplaySeal(ctx, e, f)
	if err != nil {
		return err
	}
	sealed, err := loadSealed(ctx, e, src, f.key)
	if err != nil {
		return err
	}
	urls, err := replayTargets(e, sealed, f)
	if err != nil {
		return err
	}
	if err := loadClips(sealed, src, f.audio); err != nil {
		return err
	}
	seedSet := cmd.Flags().Changed("seed")
	if seedSet && f.sameVariants {
		return usageErrorf("replay: --seed and --same-variants exclude each other")
	}
	plan, timeout, gpus, err := replayPlan(sealed, f, urls, seedSet, e.args)
	if err != nil {
		return err
	}
	rt, err := replayRoundTrip(sealed, &f.roundTripFlags, e.stderr)
	if err != nil {
		return err
	}
	key, tool, tty := clientSetup(e, f.apiKey)
	defer drainOnInterrupt(e)()

	servers, err := replayServers(e, sealed, f, urls, cmd.Flags().Changed)
	if err != nil {
		return err
	}
	servers.GPUs = gpus
	events, err := parseServerEvents(&f.eventsFlags, plan.Targets)
	if err != nil {
		return err
	}
	warnLostEvidence(e, sealed, plan.Targets, events, servers.Launch)
	origin := sealed.Origin
	var envDiff schemas.ReplayDiff
	warnEngineChange(ctx, e, sealed.Engines(), plan.Targets, key)
	infof(e.stderr, "replaying %s into %s", src, f.out)
	sess, err := session.Start(ctx, session.Config{Out: f.out, Plan: plan, Servers: *servers,
		APIKey: key, Tool: tool, Timeout: timeout, Progress: bench.NewProgress(e.stderr, tty), Hooks: []bench.Hooks{sealed.MarkReplay()},
		AllowUnlistedModel: f.allowUnlistedModel, RedactHost: f.redactHost, SampleInterval: f.sampleInterval,
		ReadyTimeout: f.launch.readyTimeout, StopGrace: f.launch.stopGrace, Captured: envDiffHook(e, sealed, &envDiff),
		Infof: e.infof, Warnf: e.warnf, Events: events, RoundTrip: rt})
	defer sess.Stop()
	if err != nil {
		return fmt.Errorf("replay: %w", launchError(ctx, err))
	}
	res, err := sess.Run(ctx)
	switch {
	case errors.Is(err, bench.ErrInterrupted):
		infof(e.stderr, "kept what was measured in %s (run marked incomplete); nothing compared", res.Dir)
		return errInterrupted
	case errors.As(err, new(*bench.UnknownModelError)):
		return replayModelError(err)
	case err != nil:
		return replayRunError(sealed, f.launch.launch.on, err)
	}
	writeRunReport(e, res.Dir)
	infof(e.stderr, "replay written to %s", res.Dir)

	cmp := sealed.Compare(res.Claims, plan.Targets, tol, envDiff)
	diffs, nc, nd, probes := cmp.Diffs, cmp.NotComparable, cmp.Differ, cmp.Probes
	if f.asJSON {
		err = claims.Comparison{Source: src, BundleSHA256: origin.BundleSHA256, KeyFingerprint: origin.KeyFingerprint,
			KeyPinned: origin.KeyPinned, Replay: res.Dir, Tolerance: claims.ComparisonTolerance{Relative: tol.Relative, QualityPoints: tol.QualityPoints},
			OK: cmp.OK(), Differ: nd, Differences: diffs, Probes: probes, Environment: envDiffOrNil(envDiff)}.WriteJSON(e.stdout)
	} else {
		err = claims.WriteComparison(e.stdout, diffs)
		if err == nil && len(probes) > 0 {
			fmt.Fprintln(e.stdout)
			err = claims.WriteProbeComparison(e.stdout, probes)
		}
	}
	if err != nil {
		return err
	}
	if f.seal != "" {
		if err := sealReplay(ctx, e, res.Dir, f, signer, origin, tol, diffs); err != nil {
			return err
		}
	}
	if nu := claims.Unstables(diffs); nu > 0 {
		infof(e.stderr, "%d of %d figures are percentiles of too few requests to judge (UNSTABLE: shown, not counted; a p99 needs %d requests per repeat)", nu, len(diffs), claims.StableRequests(0.99))
	}
	if nc > 0 {
		infof(e.stderr, "%d of %d figures moved beyond the tolerance on other hardware (%s): not comparable, neither reproduced nor contradicted", nc, len(diffs), strings.Join(envDiff.HardwareDiffers(), "; "))
	}
	if nd > 0 {
		infof(e.stderr, "%d of %d figures differ beyond the tolerance (%s, wer %g points): the replay does not reproduce the sealed claims", nd, len(diffs), percentText(tol.Relative), f.werTolerance)
		return &exitError{exitFailure}
	}
	if nc > 0 {
		return &exitError{exitFailure}
	}
	if nu := claims.Unstables(diffs); nu > 0 {
		infof(e.stderr, "the other %d figures agree within the tolerance (%s, wer %g points)", len(diffs)-nu, percentText(tol.Relative), f.werTolerance)
		return nil
	}
	infof(e.stderr, "all %d figures agree within the tolerance (%s, wer %g points)", len(diffs), percentText(tol.Relative), f.werTolerance)
	return nil
}

// replayTargets checks --target and --only against the sealed run's
// targets and returns the URL overrides by name.
func replayTargets(e *env, s *session.Sealed, f *replayFlags) (map[string]string, error) {
	urls, err := s.TargetURLs(trimV1(e, f.targets))
	var (
		ue *session.UnknownTargetError
		se *session.SettingError
	)
	switch {
	case errors.As(err, &ue):
		return nil, usageErrorf("--target %v", err)
	case errors.As(err, &se):
		return nil, usageErrorf("--target %s is given twice", se.Target)
	case err != nil:
		return nil, settingUsage(err)
	}
	if err := s.CheckTargets(f.only); err != nil {
		return nil, usageErrorf("--only %v", err)
	}
	return urls, nil
}

// replayPlan rebuilds the sealed run's plan with the flags' overrides
// (session.Sealed.Plan records each in the replay's run.json).
func replayPlan(s *session.Sealed, f *replayFlags, urls map[string]string, seedSet bool, args []string) (bench.Plan, time.Duration, map[string][]int, error) {
	o := session.ReplayOptions{URLs: urls, Only: f.only, SameVariants: f.sameVariants, Timeout: f.timeout,
		Command: fingerprint.RedactArgs(append([]string{"benchseal"}, args...))}
	if seedSet {
		o.Seed = &f.seed
	}
	if len(f.gpus) > 0 {
		names := map[string]string{}
		for _, t := range s.Run.Targets {
			names[t.Name] = t.URL
		}
		gpus, err := parseGPUs(f.gpus, names)
		if err != nil {
			return bench.Plan{}, 0, nil, err
		}
		o.GPUs = gpus
	}
	for _, kv := range f.forms {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return bench.Plan{}, 0, nil, usageErrorf("replay: --form %q: want key=value", fingerprint.Redact(kv))
		}
		o.Forms = append(o.Forms, [2]string{k, v})
	}
	p, timeout, gpus, err := s.Plan(o)
	var re *session.RedactedError
	switch {
	case errors.As(err, &re) && re.Field == "":
		return p, 0, nil, withHint(usageErrorf("replay: %v", err), "give it with --target %s=URL", re.Target)
	case errors.As(err, &re):
		return p, 0, nil, withHint(usageErrorf("replay: %v", err), "give its value with --form %s=VALUE (sent, never recorded)", re.Field)
	case err != nil:
		return p, 0, nil, fmt.Errorf("replay: %w", err)
	}
	return p, timeout, gpus, nil
}

// envDiffOrNil is the environment diff for replay --json, nil when none
// was taken.
func envDiffOrNil(d schemas.ReplayDiff) *schemas.ReplayDiff {
	if len(d.Rows) == 0 {
		return nil
	}
	return &d
}
