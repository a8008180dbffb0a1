package verify_test

// Open-loop runs (issue 29): check 7 re-derives every request's planned
// send time from the seed and run.json, so a record moved in the
// schedule, one planned_ns rewritten to hide lateness, or two requests
// swapped FAIL; a request sent late is a WARN that says how late.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

var openBase struct {
	once sync.Once
	dir  string
}

// openRun is an open-loop run directory: one simulated vLLM, rates 30 and
// 60 req/s, Poisson, 12 measured requests and 2 warm-ups, 2 repeats.
func openRun(tb testing.TB) string {
	openBase.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "open-")
		must(tb, err)
		sc, clips := writeCorpus(tb, base, 0.3, 21)
		s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: 5 * time.Millisecond})
		must(tb, err)
		ts := httptest.NewServer(s)
		defer ts.Close()
		dir := filepath.Join(base, "run")
		_, err = bench.Run(context.Background(), dir, bench.Plan{Targets: []bench.Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
			Rates: []float64{30, 60}, Requests: []int{12}, Warmup: []int{2}, Repeats: 2, Seed: 29})
		must(tb, err)
		openBase.dir = dir
	})
	if openBase.dir == "" {
		tb.Fatal("the open-loop base run failed to build")
	}
	return openBase.dir
}

func editOpenRecords(tb testing.TB, dir, file string, fn func(rs []schemas.Record) []schemas.Record) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	must(tb, err)
	rs, err := claims.ReadRecords(file, bytes.NewReader(b))
	must(tb, err)
	var out bytes.Buffer
	for _, r := range fn(rs) {
		line, err := json.Marshal(r)
		must(tb, err)
		out.Write(append(line, '\n'))
	}
	must(tb, os.WriteFile(p, out.Bytes(), 0o644))
}

// measuredAt is the index of measured seq k (0-based among the measured).
func measuredAt(tb testing.TB, rs []schemas.Record, k int) int {
	for i, r := range rs {
		if r.Phase == schemas.PhaseMeasure && r.Seq == 2+k {
			return i
		}
	}
	tb.Fatalf("no measured seq %d", 2+k)
	return -1
}

func TestOpenLoopSchedule(t *testing.T) {
	const step = "records/a/c2-r1.jsonl"
	var lateText string // sent-late's finding, counted by its doctor
	for _, tc := range []struct {
		name   string
		status verify.Status
		kind   verify.Kind
		text   string
		doctor func(tb testing.TB, dir string)
		// countLate: the finding is lateText, which the doctor counts.
		countLate bool
	}{
		{name: "base", status: verify.Pass},
		{name: "planned-shifted", status: verify.Fail, kind: verify.KindSchedule, text: "measure seq 7 planned",
			doctor: func(tb testing.TB, dir string) {
				editOpenRecords(tb, dir, step, func(rs []schemas.Record) []schemas.Record {
					rs[measuredAt(tb, rs, 5)].PlannedNs += 2e6
					return rs
				})
			}},
		// The lateness hidden: every planned_ns rewritten to its start_ns.
		{name: "lateness-hidden", status: verify.Fail, kind: verify.KindSchedule, text: "a request shifted, reordered or missing",
			doctor: func(tb testing.TB, dir string) {
				editOpenRecords(tb, dir, step, func(rs []schemas.Record) []schemas.Record {
					for i := range rs {
						rs[i].PlannedNs = rs[i].StartNs
					}
					return rs
				})
			}},
		{name: "requests-swapped", status: verify.Fail, kind: verify.KindSchedule, text: "planned",
			doctor: func(tb testing.TB, dir string) {
				editOpenRecords(tb, dir, step, func(rs []schemas.Record) []schemas.Record {
					i, j := measuredAt(tb, rs, 3), measuredAt(tb, rs, 4)
					rs[i].PlannedNs, rs[j].PlannedNs = rs[j].PlannedNs, rs[i].PlannedNs
					return rs
				})
			}},
		{name: "planned-missing", status: verify.Fail, kind: verify.KindSchedule, text: "has no planned_ns",
			doctor: func(tb testing.TB, dir string) {
				editOpenRecords(tb, dir, step, func(rs []schemas.Record) []schemas.Record {
					rs[measuredAt(tb, rs, 2)].PlannedNs = 0
					return rs
				})
			}},
		// A request in the middle sent 30 ms late (its latency unchanged, so
		// the claims still recompute): WARN, naming how late. The count
		// adds the requests a busy host already sent late in the base run
		// (lateText): 1 of 14 on a quiet one.
		{name: "sent-late", status: verify.Warn, kind: verify.KindLate, countLate: true,
			doctor: func(tb testing.TB, dir string) {
				editOpenRecords(tb, dir, step, func(rs []schemas.Record) []schemas.Record {
					r := &rs[measuredAt(tb, rs, 6)]
					before := r.StartNs - r.PlannedNs
					r.StartNs += 30e6
					r.EndNs += 30e6
					if r.FirstByteNs != 0 {
						r.FirstByteNs += 30e6
					}
					over := 0
					for _, r := range rs {
						if r.StartNs-r.PlannedNs > verify.LatenessBound.Nanoseconds() {
							over++
						}
					}
					if before > verify.LatenessBound.Nanoseconds() {
						tb.Logf("measured seq 8 was already sent %v late in the base run", time.Duration(before))
					}
					lateText = fmt.Sprintf("%d of %d requests sent more than %v after their planned time", over, len(rs), verify.LatenessBound)
					return rs
				})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			copyDir(t, openRun(t), dir)
			if tc.doctor != nil {
				tc.doctor(t, dir)
			}
			rep, err := verify.Dir(context.Background(), dir, verify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Check(verify.CheckProtocol)
			want := tc.text
			if tc.countLate {
				want = lateText
			}
			var found bool
			for _, f := range c.Findings {
				if tc.kind == "" && (f.Kind == verify.KindSchedule || f.Status == verify.Fail) {
					t.Errorf("base run: %s %s: %s", f.Status, f.Path, f.Reason)
				}
				if tc.kind != "" && f.Kind == tc.kind && f.Status == tc.status && strings.Contains(f.Reason, want) {
					found = true
					t.Logf("%s %s: %s", f.Status, f.Path, f.Reason)
				}
			}
			if tc.kind != "" && (!found || c.Status != tc.status) {
				t.Errorf("check 7 %s, findings %+v; want a %s %s finding with %q", c.Status, c.Findings, tc.status, tc.kind, want)
			}
		})
	}
}
