package main

// How `run` takes launched servers, server captures and telemetry into a
// run (issue 5).
//
// The run directory must not exist when bench.Run starts (it refuses an
// existing --out and creates it only after every target answered), yet a
// --launch server must be running before that and its log must end up in
// servers/NAME/launch.log. So a launched server logs to
// <parent of --out>/<base>.launch-NAME.log, created beside the run
// directory (same file system), and the BeforeSweep hook renames it into
// servers/NAME/launch.log: the server keeps writing to the same open file,
// now at its new place. When the run never starts (a launch or preflight
// failure) the log stays beside --out and the user is told where.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/schemas"
)

// DefaultStopGrace is how long a launched server gets between SIGTERM and
// SIGKILL at the end of a run (vLLM and SGLang free GPU memory on exit).
const DefaultStopGrace = 30 * time.Second

// serverSetup is what the run flags say about the servers besides their
// URLs: how they were (or are to be) launched, their configs and GPUs.
type serverSetup struct {
	launch    map[string]string   // NAME -> command to start (--launch)
	launchCmd map[string]string   // NAME -> how it was started elsewhere (--launch-cmd)
	launchLog map[string]string   // NAME -> log file of a server started elsewhere
	configs   map[string][]string // NAME -> config files to copy in
	gpus      map[string][]int    // NAME -> NVML indices
	urls      map[string]string
}

// parseServerSetup checks the server flags against the targets.
func parseServerSetup(f *runFlags, targets []bench.Target) (*serverSetup, error) {
	s := &serverSetup{launch: map[string]string{}, launchCmd: map[string]string{}, launchLog: map[string]string{},
		configs: map[string][]string{}, gpus: map[string][]int{}, urls: map[string]string{}}
	for _, t := range targets {
		s.urls[t.Name] = t.URL
	}
	pair := func(flag, kv string) (string, string, error) {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || name == "" || v == "" {
			return "", "", usageErrorf("--%s %q: want NAME=VALUE", flag, fingerprint.Redact(kv))
		}
		if _, ok := s.urls[name]; !ok {
			return "", "", usageErrorf("--%s %s=...: no --target named %q", flag, name, name)
		}
		return name, v, nil
	}
	for _, kv := range f.launch {
		name, cmd, err := pair("launch", kv)
		if err != nil {
			return nil, err
		}
		if _, dup := s.launch[name]; dup {
			return nil, usageErrorf("--launch %s is given twice", name)
		}
		s.launch[name] = cmd
	}
	for _, kv := range f.launchCmd {
		name, text, err := pair("launch-cmd", kv)
		if err != nil {
			return nil, err
		}
		if _, l := s.launch[name]; l {
			return nil, usageErrorf("--launch-cmd %s: %s is started with --launch, whose command is recorded", name, name)
		}
		s.launchCmd[name] = text
	}
	for _, kv := range f.launchLog {
		name, file, err := pair("launch-log", kv)
		if err != nil {
			return nil, err
		}
		if _, l := s.launch[name]; l {
			return nil, usageErrorf("--launch-log %s: %s is started with --launch, whose log is captured", name, name)
		}
		if err := regularFile("--launch-log", file); err != nil {
			return nil, err
		}
		s.launchLog[name] = file
	}
	for _, kv := range f.serverConfigs {
		name, file, err := pair("server-config", kv)
		if err != nil {
			return nil, err
		}
		if err := regularFile("--server-config", file); err != nil {
			return nil, err
		}
		for _, other := range s.configs[name] {
			if filepath.Base(other) == filepath.Base(file) {
				return nil, usageErrorf("--server-config %s: %s and %s have the same name in servers/%s/config/", name, other, file, name)
			}
		}
		s.configs[name] = append(s.configs[name], file)
	}
	for _, kv := range f.gpus {
		name, list, err := pair("gpu", kv)
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(list, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || i < 0 {
				return nil, usageErrorf("--gpu %s: want NAME=0,1 (NVML indices)", kv)
			}
			if !slices.Contains(s.gpus[name], i) {
				s.gpus[name] = append(s.gpus[name], i)
			}
		}
	}
	if err := checkGPUFlags(s.gpus); err != nil {
		return nil, err
	}
	return s, nil
}

func regularFile(flag, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return withHint(fmt.Errorf("%s %s: %w", flag, path, err), "give a file that exists")
	}
	if !fi.Mode().IsRegular() {
		return usageErrorf("%s %s: not a regular file", flag, path)
	}
	return nil
}

// servers are the launched processes of one run.
type servers struct {
	procs map[string]*fingerprint.Process
	logs  map[string]string // where each launched server's log is now
	out   string            // the run directory
}

// pendingLog is where a launched server logs until the run directory exists.
func pendingLog(out, name string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(out)), filepath.Base(filepath.Clean(out))+".launch-"+name+".log")
}

// launchAll starts every --launch server, one after another, and waits
// until each is ready. On failure the ones already started are stopped.
func launchAll(ctx context.Context, e *env, s *serverSetup, f *runFlags, names []string) (*servers, error) {
	sv := &servers{procs: map[string]*fingerprint.Process{}, logs: map[string]string{}, out: f.out}
	if len(s.launch) == 0 {
		return sv, nil
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Clean(f.out)), 0o755); err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	for _, name := range names {
		cmd, ok := s.launch[name]
		if !ok {
			continue
		}
		log := pendingLog(f.out, name)
		infof(e.stderr, "launching %s: %s", name, fingerprint.Redact(cmd))
		p, err := fingerprint.Launch(ctx, fingerprint.LaunchSpec{Name: name, Command: cmd, LogPath: log,
			ReadyURL: s.urls[name], ReadyTimeout: f.readyTimeout, Grace: f.stopGrace})
		if _, serr := os.Stat(log); serr == nil {
			sv.logs[name] = log
		}
		if err != nil {
			sv.stopAll(e)
			var le *fingerprint.LaunchError
			if errors.As(err, &le) && errors.Is(err, fs.ErrExist) {
				return sv, withHint(err, "%s is left from an earlier run; move it away or choose another --out", log)
			}
			if ctx.Err() != nil {
				return sv, errInterrupted
			}
			return sv, withHint(err, "its log is kept in %s", log)
		}
		infof(e.stderr, "%s is ready after %.1fs", name, deref(p.Record().ReadyAfterS))
		sv.procs[name] = p
	}
	return sv, nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// stopAll stops every launched server (SIGTERM, SIGKILL after the grace)
// and writes servers/NAME/launch.json when the run directory has the log.
func (sv *servers) stopAll(e *env) {
	for name, p := range sv.procs {
		select {
		case <-p.Exited():
		default:
			infof(e.stderr, "stopping %s", name)
		}
		rec := p.Stop()
		inRun := filepath.Join(sv.out, "servers", name, "launch.log")
		if sv.logs[name] != inRun {
			if l := sv.logs[name]; l != "" {
				infof(e.stderr, "the log of %s is kept in %s", name, l)
			}
			continue
		}
		rec.Log = "servers/" + name + "/launch.log"
		if err := writeJSONNew(filepath.Join(sv.out, "servers", name, "launch.json"), rec); err != nil {
			warnf(e.stderr, "write servers/%s/launch.json: %v", name, err)
		}
	}
	sv.procs = map[string]*fingerprint.Process{}
}

// exited reports whether a launched server has exited.
func (sv *servers) exited(name string) bool {
	p, ok := sv.procs[name]
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

// exitDescription says how a launched server ended.
func exitDescription(r schemas.Launch) string {
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

// stopOptions watch every launched server for the runner.
func (sv *servers) stopOptions() []bench.Option {
	var opts []bench.Option
	for name, p := range sv.procs {
		opts = append(opts, bench.WithTargetStop(name, p.Exited(), func() string { return exitDescription(p.Record()) }))
	}
	return opts
}

// recorderHooks take fingerprints, telemetry and server captures into the
// run, and bring the servers' launch commands, logs and configs into
// servers/NAME/ and run.json.
func recorderHooks(s *serverSetup, sv *servers, rec *fingerprint.Recorder) bench.Hooks {
	return bench.Hooks{
		BeforeSweep: func(ctx context.Context, d *bench.Dir) error {
			for i := range d.Run.Targets {
				t := &d.Run.Targets[i]
				if err := s.bringIn(d.Path, t, sv); err != nil {
					return fmt.Errorf("servers/%s: %w", t.Name, err)
				}
			}
			return rec.BeforeSweep(ctx, d.Path, d.Anchor)
		},
		BeforeStep: func(ctx context.Context, d *bench.Dir, st bench.Step) error {
			return rec.StepStart(ctx, st.Target, st.Concurrency, st.Repeat)
		},
		BeforeMeasure: func(ctx context.Context, d *bench.Dir, st bench.Step) error { rec.MeasureStart(); return nil },
		AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
			_, err := rec.StepEnd(ctx, r.Target, r.Concurrency, r.Repeat, r.StartNs, r.EndNs)
			if sv.exited(r.Target) {
				return nil // its /metrics is gone with it; the runner reports the exit
			}
			return err
		},
		AfterSweep: func(ctx context.Context, d *bench.Dir) error { return rec.AfterSweep(ctx) },
	}
}

// bringIn fills servers/NAME/ and the target's run.json fields.
func (s *serverSetup) bringIn(dir string, t *schemas.Target, sv *servers) error {
	name := t.Name
	sdir := filepath.Join(dir, "servers", name)
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return err
	}
	t.GPUs = s.gpus[name]
	cmd, launched := s.launch[name]
	if !launched {
		cmd = s.launchCmd[name]
	}
	if cmd != "" {
		t.LaunchCommand = fingerprint.Redact(cmd)
		if err := writeFileNew(filepath.Join(sdir, "launch-command.txt"), []byte(t.LaunchCommand+"\n")); err != nil {
			return err
		}
	}
	log := filepath.Join(sdir, "launch.log")
	switch {
	case launched && sv.logs[name] != "":
		if _, err := os.Lstat(log); err == nil {
			return fmt.Errorf("%s exists", log)
		}
		if err := os.Rename(sv.logs[name], log); err != nil {
			return fmt.Errorf("move the launch log in: %w", err)
		}
		sv.logs[name] = log
		t.LaunchLog = "servers/" + name + "/launch.log"
	case s.launchLog[name] != "":
		if err := copyRedacted(s.launchLog[name], log); err != nil {
			return err
		}
		t.LaunchLog = "servers/" + name + "/launch.log"
	}
	for _, c := range s.configs[name] {
		rel := "servers/" + name + "/config/" + filepath.Base(c)
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
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	lr := fingerprint.NewLineRedactor(out, nil)
	_, werr := lr.Write(b)
	return errors.Join(werr, lr.Flush(), out.Close())
}

func writeFileNew(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	return errors.Join(werr, f.Close())
}

func writeJSONNew(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileNew(path, append(b, '\n'))
}

// newRecorder makes the Recorder of a run.
func newRecorder(f *runFlags, s *serverSetup, key string, args []string) *fingerprint.Recorder {
	targets := map[string]fingerprint.Endpoint{}
	for name, url := range s.urls {
		h := http.Header{}
		if key != "" {
			h.Set("Authorization", "Bearer "+key)
		}
		targets[name] = fingerprint.Endpoint{URL: url, Header: h, GPUs: s.gpus[name]}
	}
	return fingerprint.NewRecorder(fingerprint.RecorderConfig{Args: args, RedactHost: f.redactHost,
		SampleInterval: f.sampleInterval, Targets: targets})
}
