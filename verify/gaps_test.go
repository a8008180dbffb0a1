package verify_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

func init() { moreKinds = append(moreKinds, gapKinds) }

// gapKinds are the doctored bundles the time between steps catches.
func gapKinds() []kind {
	return []kind{
		// Issue 25's case: a step taken out of the middle of the run left
		// its time behind. The base's steps are short (60 ms requests), so
		// the removed step is emulated by moving every step from c=3
		// repeat 1 on 6 s later, records and steps.jsonl lines alike, as a
		// run would have recorded them had a 6 s step run in between.
		{name: "step-removed-gap-left", class: "protocol", check: verify.CheckProtocol, status: verify.Warn,
			text: "a step taken out of the middle of the run, or the client paused",
			doctor: func(tb testing.TB, dir string) {
				shiftFrom(tb, dir, "records/a/c3-r1.jsonl", int64(6*time.Second))
				refresh(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				for _, f := range rep.Check(verify.CheckProtocol).Findings {
					if f.Kind == verify.KindStepGap && !strings.Contains(f.Reason, "records/a/c1-r2.jsonl and the first of records/a/c3-r1.jsonl") {
						tb.Errorf("the gap is not named between the steps around it: %s", f.Reason)
					}
				}
			}},
		// The scrape times edited to cover the gap: a scrape "after" that
		// starts before the step's last request ended cannot come from
		// the recorder.
		{name: "scrape-times-outside", class: "protocol", check: verify.CheckProtocol, status: verify.Fail,
			text: "lie outside the",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					for i := range s {
						if s[i].Target == "a" && s[i].Concurrency == 1 && s[i].Repeat == 1 {
							a := s[i].Scrapes["after"]
							a.StartNs -= int64(time.Second)
							a.DurNs += int64(time.Second)
							s[i].Scrapes["after"] = a
						}
					}
					return s
				})
			}},
	}
}

// shiftFrom moves every step from file on (in the run's schedule) and
// every cache probe by d: its records' times, its steps.jsonl line's
// window, samples and scrapes, and the probes' scrape times.
func shiftFrom(tb testing.TB, dir, file string, d int64) {
	tb.Helper()
	var run schemas.Run
	getJSON(tb, filepath.Join(dir, "run.json"), &run)
	type key struct {
		t    string
		c, r int
	}
	moved := map[key]bool{}
	on := false
	for _, conc := range run.Protocol.Levels {
		for r := 1; r <= run.Protocol.Repeats; r++ {
			order := append([]schemas.Target(nil), run.Targets...)
			if run.Protocol.TargetOrder == "alternate" && r%2 == 0 {
				for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
					order[i], order[j] = order[j], order[i]
				}
			}
			for _, t := range order {
				f := schemas.RecordsPath(t.Name, conc, r)
				on = on || f == file
				if on {
					moved[key{t.Name, conc, r}] = true
				}
			}
		}
	}
	shiftRecs := func(f string) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			shiftRecsOf(tb, dir, f, d)
		}
	}
	for k := range moved {
		shiftRecs(schemas.RecordsPath(k.t, k.c, k.r))
	}
	for _, t := range run.Targets {
		shiftRecs(schemas.ProbeRecordsPath(t.Name, 1))
	}
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			if !moved[key{s[i].Target, s[i].Concurrency, s[i].Repeat}] {
				continue
			}
			s[i].StartNs += d
			s[i].EndNs += d
			for _, p := range []*int64{s[i].SampleStartNs, s[i].SampleEndNs} {
				if p != nil {
					*p += d
				}
			}
			for w, sc := range s[i].Scrapes {
				sc.StartNs += d
				s[i].Scrapes[w] = sc
			}
		}
		return s
	})
	editProbeLines(tb, dir, func(p *schemas.ProbeTelemetry) {
		for w, sc := range p.Scrapes {
			sc.StartNs += d
			p.Scrapes[w] = sc
		}
	})
}

// editProbeLines rewrites telemetry/cache-probes.jsonl, when there is one.
func editProbeLines(tb testing.TB, dir string, fn func(*schemas.ProbeTelemetry)) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(schemas.CacheProbesFile))
	if _, err := os.Stat(p); err != nil {
		return
	}
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	must(tb, err)
	var out []byte
	for i := range tel.Probes {
		fn(&tel.Probes[i])
		b, err := json.Marshal(tel.Probes[i])
		must(tb, err)
		out = append(out, append(b, '\n')...)
	}
	must(tb, os.WriteFile(p, out, 0o644))
}

// An honest run's steps follow each other within their recorded scrapes
// and the slack, and check 7 says how close; the cache probe too, and a
// probe started long after the sweep WARNs; a run whose telemetry
// predates scrape times is "not computed by the build that sealed it",
// never a FAIL.
func TestStepGaps(t *testing.T) {
	t.Parallel()
	base := makeProbeRun(t, t.TempDir(), probeSpec{pairs: probePairs})
	gapWarnings := func(c verify.Check) []string {
		var out []string
		for _, f := range c.Findings {
			if f.Kind == verify.KindStepGap {
				out = append(out, f.Reason)
			}
		}
		return out
	}
	rep := verifyDir(t, base)
	c, text := checkOf(rep, verify.CheckProtocol)
	if w := gapWarnings(c); len(w) > 0 || c.Status == verify.Fail {
		t.Fatalf("honest run: check 7 %s, gap warnings %q\n%s", c.Status, w, text)
	}
	if !strings.Contains(c.Summary, "steps back to back (at most") {
		t.Errorf("the summary does not say the steps were bounded: %s", c.Summary)
	}
	t.Logf("honest: %s", c.Summary)

	t.Run("probe started late", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		copyDir(t, base, dir)
		// b's probe moved 5 s later: nothing recorded fills the time
		// between a's probe and b's.
		shiftRecsOf(t, dir, schemas.ProbeRecordsPath("b", 1), int64(5*time.Second))
		editProbeLines(t, dir, func(p *schemas.ProbeTelemetry) {
			if p.Target == "b" {
				for w, sc := range p.Scrapes {
					sc.StartNs += int64(5 * time.Second)
					p.Scrapes[w] = sc
				}
			}
		})
		refresh(t, dir)
		c, text := checkOf(verifyDir(t, dir), verify.CheckProtocol)
		w := gapWarnings(c)
		if len(w) != 1 || !strings.Contains(w[0], "the first of records/b/probe-1.jsonl") {
			t.Errorf("late probe: gap warnings %q\n%s", w, text)
		}
	})
	t.Run("predates scrape times", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		copyDir(t, base, dir)
		editSteps(t, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
			for i := range s {
				s[i].Scrapes = nil
			}
			return s
		})
		editProbeLines(t, dir, func(p *schemas.ProbeTelemetry) { p.Scrapes = nil })
		c, text := checkOf(verifyDir(t, dir), verify.CheckProtocol)
		if c.Status == verify.Fail || len(gapWarnings(c)) > 0 || !strings.Contains(c.Summary, "time between steps (not computed by the build that sealed it") {
			t.Errorf("old telemetry: %s\n%s", c.Status, text)
		}
	})
}

// shiftRecsOf moves every record of file by d.
func shiftRecsOf(tb testing.TB, dir, file string, d int64) {
	tb.Helper()
	editRecords(tb, dir, file, func(recs []schemas.Record) []schemas.Record {
		for i := range recs {
			recs[i].StartNs += d
			recs[i].EndNs += d
			if recs[i].FirstByteNs != 0 {
				recs[i].FirstByteNs += d
			}
		}
		return recs
	})
}
