package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/schemas"
)

// DefaultOTLPWait is how long the session waits after the sweep for spans
// still buffered in the servers: the OpenTelemetry SDK's batch span
// processor exports every 5 s by default (OTEL_BSP_SCHEDULE_DELAY).
const DefaultOTLPWait = 12 * time.Second

// profilerSettle is how long the session waits after the sweep before
// reading SGLang-Omni's event files: the stop is broadcast to the stage
// processes, which close their files on their own time (SGLang-Omni's own
// scripts sleep 3 s).
const profilerSettle = 3 * time.Second

// ServerEvents is the per-request server evidence a session collects.
type ServerEvents struct {
	// OTLPListen is the address (host:port) an OTLP trace receiver
	// listens on for the whole session; "" for none.
	OTLPListen string
	// OTLPWait bounds the wait after the sweep for spans of every measured
	// request (0: DefaultOTLPWait).
	OTLPWait time.Duration
	// ProfilerDirs: target -> a directory SGLang-Omni's request profiler
	// writes its event files into, as both the server and this host see it.
	// A launched target without one gets a directory beside the run
	// directory, and is left alone if its server has no profiler.
	ProfilerDirs map[string]string
}

// events is what the session keeps of server events while it runs.
type events struct {
	otlp     *serverevents.Receiver
	profDir  map[string]string // target -> base directory
	explicit map[string]bool   // given by the caller (not launched-auto)
	failed   map[string]bool   // the profiler refused: nothing more is asked
	steps    map[string][]bench.Step
	auto     []string // event directories the session made for launched targets
}

// startEvents starts the OTLP receiver; Start calls it before launching
// servers, so a launched vLLM finds its endpoint.
func (s *Session) startEvents() error {
	c := s.cfg.Events
	s.ev = &events{profDir: map[string]string{}, explicit: map[string]bool{}, failed: map[string]bool{}, steps: map[string][]bench.Step{}}
	if c.OTLPListen != "" {
		r, err := serverevents.Listen(c.OTLPListen)
		if err != nil {
			return fmt.Errorf("otlp: %w", err)
		}
		s.ev.otlp = r
		s.cfg.Infof("receiving OTLP traces on %s (vLLM: --otlp-traces-endpoint http://%s, gRPC by default; with OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf use http://%s%s)",
			r.Addr(), r.Addr(), r.Addr(), serverevents.TracesPath)
	}
	for _, t := range s.cfg.Plan.Targets {
		if d, ok := c.ProfilerDirs[t.Name]; ok {
			s.ev.profDir[t.Name], s.ev.explicit[t.Name] = d, true
		} else if _, launched := s.cfg.Servers.Launch[t.Name]; launched {
			dir, err := freshEventDir(s.cfg.Out, t.Name)
			if err != nil {
				return fmt.Errorf("server events of %s: %w", t.Name, err)
			}
			if base := autoEventDir(s.cfg.Out, t.Name); dir != base {
				s.cfg.Infof("%s holds an earlier run's event files: %s's request profiler writes into %s", base, t.Name, dir)
			}
			s.ev.profDir[t.Name], s.ev.auto = dir, append(s.ev.auto, dir)
		}
	}
	return nil
}

// autoEventDir is where a launched target's profiler events go without
// --server-events: beside the run directory.
func autoEventDir(out, target string) string {
	out = filepath.Clean(out)
	return filepath.Join(filepath.Dir(out), filepath.Base(out)+".events-"+target)
}

// freshEventDir creates a directory no earlier run wrote into for a
// launched target's event files: autoEventDir, or, when that exists
// (a run directory removed and made again leaves it), the first free
// autoEventDir.N. The run's unique run_id keeps sessions apart in any
// case; a fresh directory keeps an earlier run's files out of sight.
func freshEventDir(out, target string) (string, error) {
	base := autoEventDir(out, target)
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for n := 1; n < 1000; n++ {
		dir := base
		if n > 1 {
			dir = fmt.Sprintf("%s.%d", base, n)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s.2 to .999 all exist: remove the earlier runs' event directories", base)
}

// OTLPAddr is the address the OTLP receiver listens on, "" when none.
func (s *Session) OTLPAddr() string {
	if s.ev == nil || s.ev.otlp == nil {
		return ""
	}
	return s.ev.otlp.Addr()
}

func (s *Session) stopEvents() {
	if s.ev != nil && s.ev.otlp != nil {
		s.ev.otlp.Close()
	}
	if s.ev != nil {
		for _, d := range s.ev.auto {
			os.Remove(d) // only when empty: a server without a profiler wrote nothing
		}
	}
}

// profRunID is the profiler's run_id for a step of the run in d.
func profRunID(d *bench.Dir, st bench.Step) string {
	return serverevents.RunID(d.Run.StartedAt, serverevents.Step{Target: st.Target, Concurrency: st.Concurrency, Repeat: st.Repeat, Attempt: st.Attempt})
}

func (s *Session) profiler(target string) *serverevents.Profiler {
	h := http.Header{}
	if s.cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	return &serverevents.Profiler{URL: s.urls[target], Header: h, Client: &http.Client{Timeout: 10 * time.Second}}
}

// eventsHooks start and stop the request profiler around every measured
// phase, and write the joined stage times once the sweep is over.
func (s *Session) eventsHooks() bench.Hooks {
	ev := s.ev
	return bench.Hooks{
		BeforeMeasure: func(ctx context.Context, d *bench.Dir, st bench.Step) error {
			base, ok := ev.profDir[st.Target]
			if !ok || ev.failed[st.Target] {
				return nil
			}
			dir := filepath.Join(base, profRunID(d, st))
			err := s.profiler(st.Target).Start(ctx, profRunID(d, st), dir)
			var pe *serverevents.ProfileError
			switch {
			case err == nil:
				if len(ev.steps[st.Target]) == 0 && !s.cfg.Plan.Stream {
					s.cfg.Warnf("%s: SGLang-Omni returns its request id only on streamed answers: without --stream its events are held to the records by count only, not request by request", st.Target)
				}
				ev.steps[st.Target] = append(ev.steps[st.Target], st)
				return nil
			case errors.As(err, &pe) && pe.Status == http.StatusNotFound:
				ev.failed[st.Target] = true // a server without a profiler (vLLM)
				if ev.explicit[st.Target] {
					s.cfg.Warnf("--server-events %s: %s's server has no request profiler (%s answered 404): it is SGLang-Omni's; vLLM's per-request evidence is its OpenTelemetry spans (--otlp-listen)",
						st.Target, st.Target, serverevents.StartProfilePath)
				}
				return nil
			}
			ev.failed[st.Target] = true
			return fmt.Errorf("request profiler of %s: %w", st.Target, err)
		},
		AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
			if ev.failed[r.Target] || !slices.Contains(ev.steps[r.Target], r.Step) {
				return nil
			}
			err := s.profiler(r.Target).Stop(ctx, profRunID(d, r.Step))
			if r.Discarded {
				// Measured again (internal/bench): only the kept
				// attempt's events are the step's.
				ev.steps[r.Target] = slices.DeleteFunc(ev.steps[r.Target], func(st bench.Step) bool { return st == r.Step })
			}
			return err
		},
		AfterSweep: func(ctx context.Context, d *bench.Dir) error {
			return errors.Join(s.writeProfilerEvents(d), s.writeOTLP(ctx, d))
		},
	}
}

// writeProfilerEvents copies every step's event files into the run and
// writes its joined stage times.
func (s *Session) writeProfilerEvents(d *bench.Dir) error {
	ev := s.ev
	if len(ev.steps) == 0 {
		return nil
	}
	time.Sleep(profilerSettle)
	var errs []error
	for _, t := range s.cfg.Plan.Targets {
		for _, st := range ev.steps[t.Name] {
			src := filepath.Join(ev.profDir[t.Name], profRunID(d, st))
			stale, err := serverevents.CopyEvents(d.Path, serverevents.Step{Target: t.Name, Concurrency: st.Concurrency, Repeat: st.Repeat}, src, profRunID(d, st))
			if err != nil {
				errs = append(errs, fmt.Errorf("events of %s c=%d r=%d: %w", t.Name, st.Concurrency, st.Repeat, err))
			}
			if len(stale) > 0 {
				s.cfg.Warnf("events of %s c=%d r=%d: left out %d event file(s) holding no event of this run (run_id %s), an earlier run's: %s",
					t.Name, st.Concurrency, st.Repeat, len(stale), profRunID(d, st), strings.Join(stale, ", "))
			}
		}
	}
	return errors.Join(errs...)
}

// writeOTLP collects the spans into the run (serverevents.CollectOTLP).
func (s *Session) writeOTLP(ctx context.Context, d *bench.Dir) error {
	ev := s.ev
	if ev.otlp == nil {
		return nil
	}
	wait := s.cfg.Events.OTLPWait
	if wait <= 0 {
		wait = DefaultOTLPWait
	}
	var profiled []string // their evidence is the request profiler's
	for t, sts := range ev.steps {
		if len(sts) > 0 {
			profiled = append(profiled, t)
		}
	}
	silent, err := serverevents.CollectOTLP(ctx, d.Path, d.Run, ev.otlp, wait, profiled...)
	// run.json says whose spans were collected, so that a verifier holds
	// their absence as evidence removed, not as evidence never collected.
	for _, t := range d.Run.Targets {
		if !slices.Contains(silent, t.Name) && !slices.Contains(profiled, t.Name) {
			d.Event(t.Name, schemas.EventOTLPCollected, "the server's OpenTelemetry spans were collected into "+schemas.ServerPath(t.Name, "otlp/"))
		}
	}
	refused := ev.otlp.Refusals()
	for _, t := range silent {
		if len(refused) > 0 {
			s.cfg.Warnf("no OTLP spans came from %s; the receiver refused what reached it: %s", t, strings.Join(refused, "; "))
			continue
		}
		s.cfg.Warnf("no OTLP spans came from %s: start vLLM with --otlp-traces-endpoint http://%s", t, ev.otlp.Addr())
	}
	if len(silent) == 0 && len(refused) > 0 {
		s.cfg.Warnf("the OTLP receiver refused: %s", strings.Join(refused, "; "))
	}
	return err
}
