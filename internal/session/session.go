package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/roundtrip"
	"github.com/benchseal/benchseal/schemas"
)

// DefaultStopGrace is how long a launched server gets between SIGTERM and
// SIGKILL at the end of a run (vLLM and SGLang free GPU memory on exit).
const DefaultStopGrace = 30 * time.Second

// Servers is what is known of the targets' servers besides their URLs, by
// target name.
type Servers struct {
	Launch    map[string]string   // command to start the server with
	LaunchCmd map[string]string   // how a server started elsewhere was started (recorded)
	LaunchLog map[string]string   // log file of a server started elsewhere (copied in, redacted)
	Configs   map[string][]string // config files to copy into servers/<target>/config/
	GPUs      map[string][]int    // NVML indices sampled during the target's steps
}

// Config is one measurement.
type Config struct {
	Out     string     // the run directory to create
	Plan    bench.Plan // Plan.Command: the caller's command line, redacted
	Servers Servers

	APIKey             string // sent as a bearer token, never written
	Tool               schemas.Tool
	Timeout            time.Duration
	Progress           bench.Progress
	AllowUnlistedModel bool
	RedactHost         bool
	SampleInterval     time.Duration
	ReadyTimeout       time.Duration
	StopGrace          time.Duration

	Hooks []bench.Hooks // run before the session's own
	// Options are more of the runner's options (tests: bench.WithStallHook).
	Options []bench.Option

	// RoundTrip, when set, hears the produced audio of a tts run through
	// an ASR server after the sweep (run --asr-target).
	RoundTrip *roundtrip.RoundTrip

	// Captured, when set, is called once the recorder has written env/
	// and every servers/<target>/probes-before.json, before anything is
	// measured (replay's environment diff reads them there).
	Captured func(ctx context.Context, d *bench.Dir) error
	// Events is the per-request server evidence to collect (OTLP spans,
	// SGLang-Omni's request profiler); see serverevents.go.
	Events ServerEvents
	// Preregister, when set, dates the run's plan with a time-stamping
	// authority before the first request (preregister.go); a failure
	// stops the run before anything is measured.
	Preregister *Preregister

	Infof, Warnf func(format string, args ...any) // what the user reads while it runs; nil: nothing
}

// Session is a measurement started by Start.
type Session struct {
	cfg   Config
	procs map[string]*fingerprint.Process
	logs  map[string]string // where each launched server's log is now
	urls  map[string]string
	ev    *events
}

// StartError is a server Start could not launch or that did not get
// ready. Log is where its output is kept ("" when it has none).
type StartError struct {
	Target, Log string
	Err         error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// PendingLog is where a launched server of target logs until the run
// directory out exists: beside it, on the same file system.
func PendingLog(out, target string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(out)), filepath.Base(filepath.Clean(out))+".launch-"+target+".log")
}

// Start launches the servers of cfg (see the package doc). The returned
// Session is never nil: Stop it even when Start fails.
func Start(ctx context.Context, cfg Config) (*Session, error) {
	if cfg.Infof == nil {
		cfg.Infof = func(string, ...any) {}
	}
	if cfg.Warnf == nil {
		cfg.Warnf = func(string, ...any) {}
	}
	holdSecrets(cfg)
	// The caller redacted its command line before the values were held.
	cmd := make([]string, len(cfg.Plan.Command))
	for i, a := range cfg.Plan.Command {
		cmd[i] = fingerprint.ScrubSecrets(a)
	}
	cfg.Plan.Command = cmd
	s := &Session{cfg: cfg, procs: map[string]*fingerprint.Process{}, logs: map[string]string{}, urls: map[string]string{}}
	for _, t := range cfg.Plan.Targets {
		s.urls[t.Name] = t.URL
	}
	if err := s.startEvents(); err != nil {
		return s, err
	}
	if len(cfg.Servers.Launch) == 0 {
		return s, nil
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(cfg.Out)), 0o755); err != nil {
		return s, fmt.Errorf("launch: %w", err)
	}
	for _, t := range cfg.Plan.Targets {
		cmd, ok := cfg.Servers.Launch[t.Name]
		if !ok {
			continue
		}
		if err := portInUse(t.Name, t.URL); err != nil {
			s.Stop()
			return s, &StartError{Target: t.Name, Err: err}
		}
		log := PendingLog(cfg.Out, t.Name)
		cfg.Infof("launching %s: %s", t.Name, fingerprint.Redact(cmd))
		p, err := fingerprint.Launch(ctx, fingerprint.LaunchSpec{Name: t.Name, Command: cmd, LogPath: log,
			ReadyURL: t.URL, ReadyTimeout: cfg.ReadyTimeout, Grace: cfg.StopGrace})
		if _, serr := os.Stat(log); serr == nil {
			s.logs[t.Name] = log
		}
		if err != nil {
			s.Stop()
			return s, &StartError{Target: t.Name, Log: log, Err: err}
		}
		cfg.Infof("%s is ready after %.1fs", t.Name, deref(p.Record().ReadyAfterS))
		s.procs[t.Name] = p
	}
	return s, nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// Run measures the plan into the run directory and stops the launched
// servers at the end.
func (s *Session) Run(ctx context.Context) (*bench.Result, error) {
	defer s.Stop()
	c := s.cfg
	opts := []bench.Option{bench.WithTimeout(c.Timeout), bench.WithAPIKey(c.APIKey), bench.WithTool(c.Tool)}
	if c.Progress != nil {
		opts = append(opts, bench.WithProgress(c.Progress))
	}
	for _, h := range c.Hooks {
		opts = append(opts, bench.WithHooks(h))
	}
	opts = append(opts, c.Options...)
	opts = append(opts, bench.WithHooks(s.recorderHooks(s.newRecorder())), bench.WithHooks(s.eventsHooks()))
	if c.Preregister != nil {
		opts = append(opts, bench.WithHooks(c.Preregister.Hooks()))
	}
	if c.RoundTrip != nil {
		opts = append(opts, c.RoundTrip.Options(ctx)...)
	}
	for name, p := range s.procs {
		opts = append(opts, bench.WithTargetStop(name, p.Exited(), func() string { return ExitDescription(p.Record()) }))
	}
	if c.AllowUnlistedModel {
		opts = append(opts, bench.WithUnlistedModel())
	}
	return bench.Run(ctx, c.Out, c.Plan, opts...)
}

// Stop stops every launched server (SIGTERM, SIGKILL after the grace)
// and writes servers/<target>/launch.json where the run directory has its
// log. It is idempotent.
func (s *Session) Stop() {
	defer s.stopEvents()
	for name, p := range s.procs {
		select {
		case <-p.Exited():
		default:
			s.cfg.Infof("stopping %s", name)
		}
		rec := p.Stop()
		inRun := filepath.Join(s.cfg.Out, filepath.FromSlash(schemas.ServerPath(name, "launch.log")))
		if s.logs[name] != inRun {
			if l := s.logs[name]; l != "" {
				s.cfg.Infof("the log of %s is kept in %s", name, l)
			}
			continue
		}
		rec.Log = schemas.ServerPath(name, "launch.log")
		if err := newfile.WriteJSON(filepath.Join(s.cfg.Out, filepath.FromSlash(schemas.ServerPath(name, "launch.json"))), rec); err != nil {
			s.cfg.Warnf("write %s: %v", schemas.ServerPath(name, "launch.json"), err)
		}
	}
	s.procs = map[string]*fingerprint.Process{}
}

// moveLogsOut puts the launch logs bringIn moved into the run directory
// back beside it (PendingLog), for a run aborted before its first
// request, whose directory the runner removes: Stop then says where each
// log is kept.
func (s *Session) moveLogsOut(dir string) {
	for name, l := range s.logs {
		if l != filepath.Join(dir, filepath.FromSlash(schemas.ServerPath(name, "launch.log"))) {
			continue
		}
		out := PendingLog(s.cfg.Out, name)
		if err := os.Rename(l, out); err != nil {
			s.cfg.Warnf("move the launch log of %s out of the run directory: %v", name, err)
			continue
		}
		s.logs[name] = out
	}
}

// exited reports whether a launched server has exited.
func (s *Session) exited(name string) bool {
	p, ok := s.procs[name]
	if !ok {
		return false
	}
	select {
	case <-p.Exited():
		return true
	default:
		return false
	}
}

// ExitDescription says how a launched server ended.
func ExitDescription(r schemas.Launch) string {
	switch {
	case r.Signal != "":
		return "killed by " + r.Signal
	case r.ExitCode != nil:
		return fmt.Sprintf("exit status %d", *r.ExitCode)
	case r.Error != "":
		return r.Error
	}
	return "exited"
}

// newRecorder makes the Recorder of the run.
func (s *Session) newRecorder() *fingerprint.Recorder {
	targets := map[string]fingerprint.Endpoint{}
	for name, url := range s.urls {
		h := http.Header{}
		if s.cfg.APIKey != "" {
			h.Set("Authorization", "Bearer "+s.cfg.APIKey)
		}
		targets[name] = fingerprint.Endpoint{URL: url, Header: h, GPUs: s.cfg.Servers.GPUs[name]}
	}
	return fingerprint.NewRecorder(fingerprint.RecorderConfig{Args: s.cfg.Plan.Command, RedactHost: s.cfg.RedactHost,
		SampleInterval: s.cfg.SampleInterval, Targets: targets})
}

// recorderHooks take fingerprints, telemetry and server captures into the
// run, and bring the servers' launch commands, logs and configs into
// servers/<target>/ and run.json.
func (s *Session) recorderHooks(rec *fingerprint.Recorder) bench.Hooks {
	return bench.Hooks{
		BeforeSweep: func(ctx context.Context, d *bench.Dir) error {
			for i := range d.Run.Targets {
				t := &d.Run.Targets[i]
				if err := s.bringIn(d.Path, t); err != nil {
					return fmt.Errorf("servers/%s: %w", t.Name, err)
				}
				outcomeEvents(d, t)
			}
			if err := rec.BeforeSweep(ctx, d.Path, d.Anchor); err != nil || s.cfg.Captured == nil {
				return err
			}
			return s.cfg.Captured(ctx, d)
		},
		Aborted: func(d *bench.Dir, _ error) {
			rec.Abort()
			s.moveLogsOut(d.Path)
		},
		BeforeStep: func(ctx context.Context, d *bench.Dir, st bench.Step) error {
			return rec.StepStart(ctx, st.Target, st.Concurrency, st.Repeat)
		},
		BeforeMeasure: func(ctx context.Context, d *bench.Dir, st bench.Step) error {
			rec.Expect(st.Target, st.WarmupSucceeded)
			return rec.MeasureStart(ctx, st.Target, st.Concurrency, st.Repeat)
		},
		AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
			rec.Expect(r.Target, r.Succeeded)
			_, err := rec.StepEndAttempt(ctx, r.Target, r.Concurrency, r.Repeat, r.Attempt, r.Discarded, r.StartNs, r.EndNs)
			if s.exited(r.Target) {
				return nil // its /metrics is gone with it; the runner reports the exit
			}
			return err
		},
		BeforeProbe: func(ctx context.Context, d *bench.Dir, target string) error { return rec.ProbeStart(ctx, target) },
		AfterProbe:  func(ctx context.Context, d *bench.Dir, target string) error { return rec.ProbeEnd(ctx, target) },
		AfterSweep:  func(ctx context.Context, d *bench.Dir) error { return rec.AfterSweep(ctx) },
	}
}

// outcomeEvents records, as run events "outcome_knob", every setting of
// t's launch command that changes what its requests are answered
// (fingerprint.OutcomeKnobs: VLLM_SKIP_MODEL_NAME_VALIDATION, vLLM's
// upload and decode limits, SGLang-Omni's queue bound and encoder cache,
// ...), with what it changes: the launch command is sealed, and this
// says what in it a reader must know.
func outcomeEvents(d *bench.Dir, t *schemas.Target) {
	for _, k := range fingerprint.OutcomeKnobs(t.LaunchCommand) {
		set := k.Name
		if k.Value != "" {
			set += "=" + k.Value
		}
		d.Event(t.Name, "outcome_knob", fmt.Sprintf("the launch command sets %s (%s): %s; source: %s", set, k.Engine, k.Effect, k.Source))
	}
}

// bringIn fills servers/<target>/ and the target's run.json fields.
func (s *Session) bringIn(dir string, t *schemas.Target) error {
	name, sv := t.Name, s.cfg.Servers
	sdir := filepath.Join(dir, filepath.FromSlash(schemas.ServerPath(name, "")))
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return err
	}
	t.GPUs = sv.GPUs[name]
	cmd, launched := sv.Launch[name]
	if !launched {
		cmd = sv.LaunchCmd[name]
	}
	if cmd != "" {
		t.LaunchCommand = fingerprint.Redact(cmd)
		if err := newfile.Write(filepath.Join(sdir, "launch-command.txt"), []byte(t.LaunchCommand+"\n"), 0o644); err != nil {
			return err
		}
	}
	log := filepath.Join(sdir, "launch.log")
	switch {
	case launched && s.logs[name] != "":
		if _, err := os.Lstat(log); err == nil {
			return fmt.Errorf("%s exists", log)
		}
		if err := os.Rename(s.logs[name], log); err != nil {
			return fmt.Errorf("move the launch log in: %w", err)
		}
		s.logs[name] = log
		t.LaunchLog = schemas.ServerPath(name, "launch.log")
	case sv.LaunchLog[name] != "":
		if err := copyRedacted(sv.LaunchLog[name], log); err != nil {
			return err
		}
		t.LaunchLog = schemas.ServerPath(name, "launch.log")
	}
	for _, c := range sv.Configs[name] {
		rel := schemas.ServerPath(name, "config/"+filepath.Base(c))
		if err := os.MkdirAll(filepath.Join(sdir, "config"), 0o755); err != nil {
			return err
		}
		if err := copyRedacted(c, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return err
		}
		t.ConfigFiles = append(t.ConfigFiles, rel)
	}
	return nil
}

// copyRedacted copies a text file line by line through the redactor.
func copyRedacted(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	out, err := newfile.Create(dst, 0o644)
	if err != nil {
		return err
	}
	lr := fingerprint.NewLineRedactor(out, nil)
	_, werr := lr.Write(b)
	return errors.Join(werr, lr.Flush(), out.Close())
}
