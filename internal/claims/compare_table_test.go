package claims

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// The table shows each figure in its own unit, changes in % or points, and
// a row for a level only one side has.
func TestWriteComparison(t *testing.T) {
	wer := func(v float64) *float64 { return &v }
	lv := func(c int, rps, p50 float64, w *float64) schemas.LevelClaims {
		m := schemas.Metrics{Requests: 8, Succeeded: 8, ReqPerS: rps, RTFx: wer(rps / 2), LatencyP50S: wer(p50), LatencyP99S: wer(p50), Quality: w}
		return schemas.LevelClaims{Concurrency: c, Median: m}
	}
	sealed := schemas.Claims{Targets: []schemas.TargetClaims{{Target: "vllm", Levels: []schemas.LevelClaims{lv(1, 20, 0.05, wer(0.04)), lv(8, 90, 0.09, nil)}}}}
	replayed := schemas.Claims{Targets: []schemas.TargetClaims{{Target: "vllm", Levels: []schemas.LevelClaims{lv(1, 10, 0.1, wer(0.045))}}}}
	var b strings.Builder
	if err := WriteComparison(&b, Compare(sealed, replayed, DefaultTolerance)); err != nil {
		t.Fatal(err)
	}
	want := `target  C  metric         sealed  replayed  change   verdict
vllm    1  req_per_s      20.00   10.00     -50.0%   DIFF
vllm    1  rtfx           10.00   5.00      -50.0%   DIFF
vllm    1  latency_p50_s  0.0500  0.1000    +100.0%  DIFF
vllm    1  latency_p99_s  0.0500  0.1000    +100.0%  UNSTABLE  p99 of 8 requests per repeat: too few to judge (it needs 368 to be bounded at 95 %); not counted
vllm    1  wer            4.00%   4.50%     +0.50pt  OK
vllm    1  succeeded      8       8         +0.0%    OK
vllm    1  failed         0       0         +0.0%    OK
vllm    8  -              -       -         -        DIFF  level not in the replay
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	if n := Differing(Compare(sealed, replayed, DefaultTolerance)); n != 4 {
		t.Errorf("Differing = %d, want 4 (the p99 of 8 requests is not counted)", n)
	}
	two := schemas.Claims{Targets: []schemas.TargetClaims{{Target: "a"}, {Target: "b"}, {Target: "c"}}}
	got := ForTargets(two, func(name string) bool { return name != "b" })
	if len(got.Targets) != 2 || got.Targets[0].Target != "a" || got.Targets[1].Target != "c" || len(two.Targets) != 3 {
		t.Errorf("ForTargets kept %+v (from %+v)", got.Targets, two.Targets)
	}
}

// Comparison's JSON keeps replay --json's keys, and no differences are [].
func TestComparisonJSON(t *testing.T) {
	var b strings.Builder
	c := Comparison{Source: "e.tar.zst", Replay: "out", Tolerance: ComparisonTolerance{Relative: 0.1, QualityPoints: 1}, OK: true}
	if err := c.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want := `{
  "source": "e.tar.zst",
  "key_pinned": false,
  "replay": "out",
  "tolerance": {
    "relative": 0.1,
    "wer_points": 1
  },
  "ok": true,
  "differ": 0,
  "differences": []
}
`
	if b.String() != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", b.String(), want)
	}
}
