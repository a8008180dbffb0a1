package serverevents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/schemas"
)

// Step names one records file of a run: a target at a level and repeat.
type Step struct {
	Target      string
	Concurrency int
	Repeat      int
	// Attempt is the step's measurement (internal/bench measures a
	// stalled step again); 0 or 1 is the first. It names the profiling
	// session (RunID), not the files.
	Attempt int
}

// Steps lists the sweep's steps whose records files the run directory
// holds, by target (the cache probe's files are not steps).
func Steps(dir string, run *schemas.Run) map[string][]Step {
	out := map[string][]Step{}
	for _, t := range run.Targets {
		ents, _ := os.ReadDir(filepath.Join(dir, schemas.RecordsDir, t.Name))
		for _, e := range ents {
			var c, r int
			if n, _ := fmt.Sscanf(e.Name(), "c%d-r%d.jsonl", &c, &r); n == 2 && e.Name() == path.Base(schemas.RecordsPath(t.Name, c, r)) {
				out[t.Name] = append(out[t.Name], Step{Target: t.Name, Concurrency: c, Repeat: r})
			}
		}
	}
	return out
}

// StepRecords reads a step's records from the run directory.
func StepRecords(dir string, st Step) ([]schemas.Record, error) {
	name := schemas.RecordsPath(st.Target, st.Concurrency, st.Repeat)
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return claims.ReadRecords(name, f)
}

// WriteStages writes a step's stage lines (one JSON object a line) to
// its StagesPath; an existing file is an error.
func WriteStages(dir string, st Step, lines []schemas.RequestStages) error {
	var buf bytes.Buffer
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return writeNew(dir, schemas.StagesPath(st.Target, st.Concurrency, st.Repeat), buf.Bytes())
}

func writeNew(dir, name string, b []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return newfile.Write(p, b, 0o644)
}

// CopyEvents copies the profiler's event files of session runID from src
// (the event_dir the server was given) into the run as the step's, and
// writes the step's joined stage lines. A file in src holding no event of
// runID (an earlier run's, left behind) is not copied: CopyEvents returns
// its name in stale. Only runID's events are joined (StepEvents).
func CopyEvents(dir string, st Step, src, runID string) (stale []string, err error) {
	ents, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	var all []Event
	var errs []error
	for _, e := range ents {
		if !e.Type().IsRegular() || !EventFile.MatchString(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		evs, perr := ParseEvents(bytes.NewReader(b))
		if perr == nil && len(OfRun(evs, runID)) == 0 {
			stale = append(stale, filepath.Join(src, e.Name()))
			continue
		}
		if err := writeNew(dir, schemas.ProfilerEventsPath(st.Target, st.Concurrency, st.Repeat, e.Name()), b); err != nil {
			errs = append(errs, err)
			continue
		}
		if perr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name(), perr))
		}
		all = append(all, evs...)
	}
	recs, err := StepRecords(dir, st)
	if err != nil {
		return stale, errors.Join(append(errs, err)...)
	}
	return stale, errors.Join(append(errs, WriteStages(dir, st, StepEvents(all, runID, recs)))...)
}

// CollectOTLP waits until r holds a span for every measured request that
// succeeded (or wait has passed, or ctx is done), then writes, for each
// target some span names, the exports that carry its spans
// (OTLPExportPath) and every step's joined stage lines. It returns the
// targets no span named. Targets in skip (whose evidence comes from
// elsewhere) are neither waited for nor written.
func CollectOTLP(ctx context.Context, dir string, run *schemas.Run, r *Receiver, wait time.Duration, skip ...string) (silent []string, err error) {
	steps := Steps(dir, run)
	for _, t := range skip {
		delete(steps, t)
	}
	recs := map[Step][]schemas.Record{}
	var errs []error
	want := map[string]bool{}
	for _, sts := range steps {
		for _, st := range sts {
			rs, err := StepRecords(dir, st)
			if err != nil {
				errs = append(errs, err)
			}
			recs[st] = rs
			for _, rec := range rs {
				if rec.Phase == schemas.PhaseMeasure && rec.OK && rec.RequestID != "" {
					want[rec.RequestID] = true
				}
			}
		}
	}
	deadline := time.Now().Add(wait)
	for {
		seen := map[string]bool{}
		for _, e := range r.Exports() {
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
		if missing == 0 || !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	exports := r.Exports()
	for _, t := range run.Targets {
		if _, ok := steps[t.Name]; !ok {
			continue
		}
		prefix := ""
		for _, st := range steps[t.Name] {
			if p := StepPrefix(recs[st]); p != "" {
				prefix = p[:len("bs-")+16+1] // bs-<16 hex>-: the target's
				break
			}
		}
		if prefix == "" {
			continue
		}
		var spans []Span
		n := 0
		for _, e := range exports {
			if !slices.ContainsFunc(e.Spans, func(sp Span) bool { return strings.HasPrefix(sp.BenchID, prefix) }) {
				continue
			}
			n++
			if err := writeNew(dir, schemas.OTLPExportPath(t.Name, n), e.Body); err != nil {
				errs = append(errs, err)
			}
			spans = append(spans, e.Spans...)
		}
		if n == 0 {
			silent = append(silent, t.Name)
			continue
		}
		for _, st := range steps[t.Name] {
			if err := WriteStages(dir, st, StepSpans(spans, recs[st])); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return silent, errors.Join(errs...)
}
