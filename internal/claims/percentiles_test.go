package claims

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// TestAskedPercentiles: run.json's protocol.percentiles (run
// --percentiles) adds latency_percentiles to every repeat, defined as
// the fixed percentiles are (ok latencies 0.1 0.1 0.2 of oneRepeat: p0
// 0.1, p99.9 0.1998, p100 0.2), the median, min and max over repeats
// percentile by percentile; the fixed fields are unchanged, a run
// without percentiles has none, and claims.json validates either way.
func TestAskedPercentiles(t *testing.T) {
	run := testRun()
	run.Protocol.Repeats = 2
	plain, err := Compute(run, append(oneRepeat("a", 1), oneRepeat("a", 2)...))
	if err != nil {
		t.Fatal(err)
	}
	if lp := plain.Targets[0].Levels[0].Median.LatencyPercentiles; lp != nil {
		t.Errorf("no --percentiles, yet latency_percentiles %v", lp)
	}
	b, _ := json.Marshal(plain)
	if strings.Contains(string(b), "latency_percentiles") {
		t.Error("claims.json without --percentiles names latency_percentiles")
	}

	run.Protocol.Percentiles = []float64{99.9, 0, 50, 100}
	// Repeat 2 is slower by 0.1 s on its slowest request.
	r2 := oneRepeat("a", 2)
	r2[2].EndNs += 100 * ms
	c, err := Compute(run, append(oneRepeat("a", 1), r2...))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Targets[0].Levels[0]
	want := map[int][]float64{0: {0.1998, 0.1, 0.1, 0.2}, 1: {0.2996, 0.1, 0.1, 0.3}}
	for rep, w := range want {
		m := l.Repeats[rep]
		if len(m.LatencyPercentiles) != len(w) {
			t.Fatalf("repeat %d: %v", rep+1, m.LatencyPercentiles)
		}
		for i, lp := range m.LatencyPercentiles {
			if lp.P != run.Protocol.Percentiles[i] || lp.LatencyS == nil || !near(*lp.LatencyS, w[i]) {
				t.Errorf("repeat %d: p%g = %v, want %v", rep+1, lp.P, fval(lp.LatencyS), w[i])
			}
		}
		if !near(fval(m.LatencyP50S), 0.1) || m.LatencyP99S == nil {
			t.Errorf("repeat %d: the fixed percentiles moved: p50 %v", rep+1, fval(m.LatencyP50S))
		}
	}
	if md, lo, hi := l.Median.LatencyPercentiles[0], l.Min.LatencyPercentiles[0], l.Max.LatencyPercentiles[0]; !near(fval(md.LatencyS), (0.1998+0.2996)/2) || !near(fval(lo.LatencyS), 0.1998) || !near(fval(hi.LatencyS), 0.2996) || md.P != 99.9 {
		t.Errorf("p99.9 median/min/max = %v %v %v", fval(md.LatencyS), fval(lo.LatencyS), fval(hi.LatencyS))
	}
	b, _ = json.Marshal(c)
	if err := schemas.Validate("claims", b); err != nil {
		t.Errorf("claims.json does not validate: %v", err)
	}

	// Compare names p99.9 after p99 (p50 is compared once, as the fixed
	// field), and a slower p99.9 is a DIFF.
	slower := c
	slower.Targets = []schemas.TargetClaims{c.Targets[0]}
	sl := slower.Targets[0].Levels[0]
	sl.Median.LatencyPercentiles = append([]schemas.LatencyPercentile(nil), sl.Median.LatencyPercentiles...)
	v := fval(sl.Median.LatencyPercentiles[0].LatencyS) * 2
	sl.Median.LatencyPercentiles[0].LatencyS = &v
	slower.Targets[0].Levels = []schemas.LevelClaims{sl}
	var names []string
	var diff *Difference
	for _, d := range Compare(c, slower, Tolerance{Relative: 0.1, QualityPoints: 1, AllTails: true}) {
		if d.Target == "a" {
			names = append(names, d.Metric)
			if d.Metric == "latency_p99_9_s" {
				d := d
				diff = &d
			}
		}
	}
	if got := strings.Join(names, ","); got != "req_per_s,rtfx,latency_p50_s,latency_p99_s,latency_p99_9_s,latency_p0_s,latency_p100_s,succeeded,failed" {
		t.Errorf("compared metrics %s", got)
	}
	if diff == nil || diff.Verdict != Diff {
		t.Errorf("a doubled p99.9: %+v", diff)
	}
}
