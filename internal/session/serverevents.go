package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/newfile"
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
			out := filepath.Clean(s.cfg.Out)
			s.ev.profDir[t.Name] = filepath.Join(filepath.Dir(out), filepath.Base(out)+".events-"+t.Name)
		}
	}
	return nil
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
}

func profRunID(st bench.Step) string {
	return fmt.Sprintf("benchseal-%s-c%d-r%d", st.Target, st.Concurrency, st.Repeat)
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
			dir := filepath.Join(base, profRunID(st))
			err := s.profiler(st.Target).Start(ctx, profRunID(st), dir)
			var pe *serverevents.ProfileError
			switch {
			case err == nil:
				ev.steps[st.Target] = append(ev.steps[st.Target], st)
				return nil
			case !ev.explicit[st.Target] && errors.As(err, &pe) && pe.Status == http.StatusNotFound:
				ev.failed[st.Target] = true // a launched server without a profiler (vLLM)
				return nil
			}
			ev.failed[st.Target] = true
			return fmt.Errorf("request profiler of %s: %w", st.Target, err)
		},
		AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
			if ev.failed[r.Target] || !slices.Contains(ev.steps[r.Target], r.Step) {
				return nil
			}
			return s.profiler(r.Target).Stop(ctx, profRunID(r.Step))
		},
		AfterSweep: func(ctx context.Context, d *bench.Dir) error {
			return errors.Join(s.writeProfilerEvents(d), s.writeOTLP(ctx, d))
		},
	}
}

// stepRecords reads the records of a step from the run directory.
func stepRecords(dir string, st bench.Step) ([]schemas.Record, error) {
	name := schemas.RecordsPath(st.Target, st.Concurrency, st.Repeat)
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return claims.ReadRecords(name, f)
}

func writeStages(dir, target string, st bench.Step, lines []schemas.RequestStages) error {
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	p := filepath.Join(dir, filepath.FromSlash(schemas.StagesPath(target, st.Concurrency, st.Repeat)))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return newfile.Write(p, buf.Bytes(), 0o644)
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
			src := filepath.Join(ev.profDir[t.Name], profRunID(st))
			ents, err := os.ReadDir(src)
			if err != nil {
				errs = append(errs, fmt.Errorf("events of %s c=%d r=%d: %w", t.Name, st.Concurrency, st.Repeat, err))
				continue
			}
			var all []serverevents.Event
			for _, e := range ents {
				if !e.Type().IsRegular() || !serverevents.EventFile.MatchString(e.Name()) {
					continue
				}
				b, err := os.ReadFile(filepath.Join(src, e.Name()))
				if err != nil {
					errs = append(errs, err)
					continue
				}
				dst := filepath.Join(d.Path, filepath.FromSlash(schemas.ProfilerEventsPath(t.Name, st.Concurrency, st.Repeat, e.Name())))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					errs = append(errs, err)
					continue
				}
				if err := newfile.Write(dst, b, 0o644); err != nil {
					errs = append(errs, err)
					continue
				}
				evs, err := serverevents.ParseEvents(bytes.NewReader(b))
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", e.Name(), err))
				}
				all = append(all, evs...)
			}
			recs, err := stepRecords(d.Path, st)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if err := writeStages(d.Path, t.Name, st, serverevents.StepEvents(all, recs)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// sweepSteps lists the steps whose records files the run holds, by target.
func sweepSteps(dir string, run *schemas.Run) map[string][]bench.Step {
	out := map[string][]bench.Step{}
	for _, t := range run.Targets {
		ents, _ := os.ReadDir(filepath.Join(dir, schemas.RecordsDir, t.Name))
		for _, e := range ents {
			var c, r int
			if n, _ := fmt.Sscanf(e.Name(), "c%d-r%d.jsonl", &c, &r); n == 2 && e.Name() == path.Base(schemas.RecordsPath(t.Name, c, r)) {
				out[t.Name] = append(out[t.Name], bench.Step{Target: t.Name, Concurrency: c, Repeat: r})
			}
		}
	}
	return out
}

// writeOTLP waits for the spans of every measured request (or
// Events.OTLPWait), then writes, for each target some span named, the
// exports that carry its spans and every step's joined stage times.
func (s *Session) writeOTLP(ctx context.Context, d *bench.Dir) error {
	ev := s.ev
	if ev.otlp == nil {
		return nil
	}
	steps := sweepSteps(d.Path, d.Run)
	want := map[string]bool{}
	for _, sts := range steps {
		for _, st := range sts {
			recs, _ := stepRecords(d.Path, st)
			for _, r := range recs {
				if r.Phase == schemas.PhaseMeasure && r.OK && r.RequestID != "" {
					want[r.RequestID] = true
				}
			}
		}
	}
	wait := s.cfg.Events.OTLPWait
	if wait <= 0 {
		wait = DefaultOTLPWait
	}
	deadline := time.Now().Add(wait)
	for {
		seen := map[string]bool{}
		for _, e := range ev.otlp.Exports() {
			for _, sp := range e.Spans {
				seen[sp.BenchID] = true
			}
		}
		missing := 0
		for id := range want {
			if !seen[id] {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	exports := ev.otlp.Exports()
	var errs []error
	for _, t := range s.cfg.Plan.Targets {
		var recsByStep [][]schemas.Record
		prefix := ""
		for _, st := range steps[t.Name] {
			recs, err := stepRecords(d.Path, st)
			if err != nil {
				errs = append(errs, err)
			}
			recsByStep = append(recsByStep, recs)
			if p := serverevents.StepPrefix(recs); p != "" && prefix == "" {
				prefix = p[:len("bs-")+16+1]
			}
		}
		if prefix == "" {
			continue
		}
		var spans []serverevents.Span
		n := 0
		for _, e := range exports {
			if !slices.ContainsFunc(e.Spans, func(sp serverevents.Span) bool { return strings.HasPrefix(sp.BenchID, prefix) }) {
				continue
			}
			n++
			p := filepath.Join(d.Path, filepath.FromSlash(schemas.OTLPExportPath(t.Name, n)))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				errs = append(errs, err)
				break
			}
			if err := newfile.Write(p, e.Body, 0o644); err != nil {
				errs = append(errs, err)
			}
			spans = append(spans, e.Spans...)
		}
		if n == 0 {
			s.cfg.Warnf("no OTLP spans came from %s: start vLLM with --otlp-traces-endpoint http://%s", t.Name, ev.otlp.Addr())
			continue
		}
		for i, st := range steps[t.Name] {
			if err := writeStages(d.Path, t.Name, st, serverevents.StepSpans(spans, recsByStep[i])); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
