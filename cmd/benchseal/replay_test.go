package main

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

func TestReplayTolerance(t *testing.T) {
	for in, want := range map[string]float64{"10%": 0.10, "10": 0.10, " 2.5 % ": 0.025, "0%": 0, "200%": 2} {
		got, err := parsePercent("--tolerance", in)
		if err != nil || got != want {
			t.Errorf("parsePercent(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "-1%", "ten", "NaN", "Inf%", "0.1x"} {
		if _, err := parsePercent("--tolerance", in); err == nil {
			t.Errorf("parsePercent(%q) accepted", in)
		}
	}
}

// The table shows each figure in its own unit, changes in % or points, and
// a row for a level only one side has.
func TestReplayTable(t *testing.T) {
	wer := func(v float64) *float64 { return &v }
	lv := func(c int, rps, p50 float64, w *float64) schemas.LevelClaims {
		m := schemas.Metrics{Requests: 8, Succeeded: 8, ReqPerS: rps, RTFx: rps / 2, LatencyP50S: p50, LatencyP99S: p50, WER: w}
		return schemas.LevelClaims{Concurrency: c, Median: m}
	}
	sealed := schemas.Claims{Targets: []schemas.TargetClaims{{Target: "vllm", Levels: []schemas.LevelClaims{lv(1, 20, 0.05, wer(0.04)), lv(8, 90, 0.09, nil)}}}}
	replayed := schemas.Claims{Targets: []schemas.TargetClaims{{Target: "vllm", Levels: []schemas.LevelClaims{lv(1, 10, 0.1, wer(0.045))}}}}
	var b strings.Builder
	if err := printComparison(&b, claims.Compare(sealed, replayed, claims.DefaultTolerance)); err != nil {
		t.Fatal(err)
	}
	want := `target  C  metric         sealed  replayed  change   verdict
vllm    1  req_per_s      20.00   10.00     -50.0%   DIFF
vllm    1  rtfx           10.00   5.00      -50.0%   DIFF
vllm    1  latency_p50_s  0.0500  0.1000    +100.0%  DIFF
vllm    1  latency_p99_s  0.0500  0.1000    +100.0%  DIFF
vllm    1  wer            4.00%   4.50%     +0.50pt  OK
vllm    1  succeeded      8       8         +0.0%    OK
vllm    1  failed         0       0         +0.0%    OK
vllm    8  -              -       -         -        DIFF  level not in the replay
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}
