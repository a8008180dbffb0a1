package claims

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func level(c int, rps, p50 float64, ok, failed int, wer *float64) schemas.LevelClaims {
	m := schemas.Metrics{Requests: ok + failed, Succeeded: ok, Failed: failed, ReqPerS: rps, RTFx: ptr(rps * 2),
		LatencyP50S: ptr(p50), LatencyP99S: ptr(p50 * 3), Quality: wer}
	return schemas.LevelClaims{Concurrency: c, Repeats: []schemas.Metrics{m}, Median: m, Min: m, Max: m}
}

func claimsOf(targets ...schemas.TargetClaims) schemas.Claims {
	return schemas.Claims{Schema: schemas.ClaimsSchema, Targets: targets}
}

// rows renders differences as "target c metric verdict change" lines, the
// change rounded so that the expectations read as what a person checks.
func rows(diffs []Difference) string {
	var b strings.Builder
	for _, d := range diffs {
		ch := "-"
		if d.Change != nil {
			ch = fmt.Sprintf("%+.3f", *d.Change)
		}
		fmt.Fprintf(&b, "%s c%d %s %s %s %s\n", d.Target, d.Concurrency, d.Metric, d.Verdict, ch, d.Reason)
	}
	return b.String()
}

func TestCompareWithin(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{
		level(1, 10, 0.100, 16, 0, f64(0.05)), level(8, 40, 0.200, 64, 0, f64(0.05))}})
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{
		level(1, 10.5, 0.095, 16, 0, f64(0.059)), level(8, 37, 0.210, 64, 0, f64(0.041))}})
	got := rows(Compare(sealed, replayed, DefaultTolerance))
	want := `a c1 req_per_s OK +0.050 
a c1 rtfx OK +0.050 
a c1 latency_p50_s OK -0.050 
a c1 latency_p99_s UNSTABLE -0.050 p99 of 16 requests per repeat: too few to judge (it needs 368 to be bounded at 95 %); not counted
a c1 wer OK +0.900 
a c1 succeeded OK +0.000 
a c1 failed OK +0.000 
a c8 req_per_s OK -0.075 
a c8 rtfx OK -0.075 
a c8 latency_p50_s OK +0.050 
a c8 latency_p99_s UNSTABLE +0.050 p99 of 64 requests per repeat: too few to judge (it needs 368 to be bounded at 95 %); not counted
a c8 wer OK -0.900 
a c8 succeeded OK +0.000 
a c8 failed OK +0.000 
`
	if got != want {
		t.Errorf("Compare:\n%s\nwant:\n%s", got, want)
	}
}

func TestCompareBeyond(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(4, 30, 0.100, 500, 0, f64(0.05))}})
	// A server three times slower, that now fails 100 of 500 requests and
	// gets 2 points of WER worse.
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(4, 10, 0.300, 400, 100, f64(0.07))}})
	got := rows(Compare(sealed, replayed, DefaultTolerance))
	want := `a c4 req_per_s DIFF -0.667 
a c4 rtfx DIFF -0.667 
a c4 latency_p50_s DIFF +2.000 
a c4 latency_p99_s DIFF +2.000 
a c4 wer DIFF +2.000 
a c4 succeeded DIFF -0.200 
a c4 failed DIFF +0.200 
`
	if got != want {
		t.Errorf("Compare:\n%s\nwant:\n%s", got, want)
	}
	// The same replay within a tolerance wide enough for all of it (a
	// tail of too few requests stays unstable, within or beyond).
	for _, d := range Compare(sealed, replayed, Tolerance{Relative: 2, QualityPoints: 2}) {
		if d.Verdict != Same && d.Verdict != Unstable {
			t.Errorf("with tolerance 200%%/2pt: %+v is %s", d, d.Verdict)
		}
	}
}

// A change of exactly the tolerance is within it, whatever float64 makes
// of 10%.
func TestCompareEdgeOfTolerance(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 400, 0, f64(0.05))}})
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 11, 0.11, 400, 0, f64(0.06))}})
	for _, d := range Compare(sealed, replayed, DefaultTolerance) {
		if d.Verdict != Same {
			t.Errorf("%s change %v at exactly the tolerance: %s", d.Metric, *d.Change, d.Verdict)
		}
	}
	replayed.Targets[0].Levels[0].Median.ReqPerS = 11.0001
	if d := Compare(sealed, replayed, DefaultTolerance)[0]; d.Metric != "req_per_s" || d.Verdict != Diff {
		t.Errorf("req_per_s just beyond 10%%: %+v", d)
	}
}

func TestCompareMissing(t *testing.T) {
	sealed := claimsOf(
		schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 10, 0, nil), level(8, 40, 0.2, 10, 0, nil)}},
		schemas.TargetClaims{Target: "b", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 10, 0, nil)}})
	replayed := claimsOf(
		schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 10, 0, nil), level(16, 40, 0.2, 10, 0, nil)}},
		schemas.TargetClaims{Target: "c", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 10, 0, nil)}})
	got := rows(Compare(sealed, replayed, DefaultTolerance))
	// No wer rows: null on both sides means there was nothing to score.
	want := `a c1 req_per_s OK +0.000 
a c1 rtfx OK +0.000 
a c1 latency_p50_s OK +0.000 
a c1 latency_p99_s UNSTABLE +0.000 p99 of 10 requests per repeat: too few to judge (it needs 368 to be bounded at 95 %); not counted
a c1 succeeded OK +0.000 
a c1 failed OK +0.000 
a c8  DIFF - level not in the replay
a c16  DIFF - level not in the sealed claims
b c1  DIFF - target not in the replay
c c1  DIFF - target not in the sealed claims
`
	if got != want {
		t.Errorf("Compare:\n%s\nwant:\n%s", got, want)
	}
}

func TestCompareWERNullOnOneSide(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 10, 0, f64(0.05))}})
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 10, 0, nil)}})
	check := func(diffs []Difference, reason string) {
		t.Helper()
		for _, d := range diffs {
			if d.Metric != "wer" {
				continue
			}
			if d.Verdict != Diff || d.Change != nil || d.Reason != reason {
				t.Errorf("wer null on one side: %+v, want DIFF, no change, reason %q", d, reason)
			}
			return
		}
		t.Errorf("no wer row in %s", rows(diffs))
	}
	check(Compare(sealed, replayed, DefaultTolerance), "wer is null in the replay")
	check(Compare(replayed, sealed, DefaultTolerance), "wer is null in the sealed claims")
}

// Zero is compared as a value: 0 -> 0 is no change, 0 -> something has no
// relative change and is a DIFF; counts are judged against the requests,
// so one failure in 100 where there were none passes a 10% tolerance.
func TestCompareZeros(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 0, 0, 0, 100, nil)}})
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 5, 0.2, 1, 99, nil)}})
	got := rows(Compare(sealed, replayed, DefaultTolerance))
	want := `a c1 req_per_s DIFF - the sealed value is 0
a c1 rtfx DIFF - the sealed value is 0
a c1 latency_p50_s DIFF - the sealed value is 0
a c1 latency_p99_s DIFF - the sealed value is 0
a c1 succeeded OK +0.010 
a c1 failed OK -0.010 
`
	if got != want {
		t.Errorf("Compare:\n%s\nwant:\n%s", got, want)
	}
	same := rows(Compare(sealed, sealed, DefaultTolerance))
	if strings.Contains(same, "DIFF") {
		t.Errorf("all-zero claims against themselves:\n%s", same)
	}
}

// The JSON form is what replay --json prints: null for what is absent.
func TestDifferenceJSON(t *testing.T) {
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(2, 10, 0.1, 10, 0, f64(0.05))}})
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(2, 12.5, 0.1, 10, 0, nil)}})
	diffs := Compare(sealed, replayed, DefaultTolerance)
	b, err := json.Marshal(diffs[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"target":"a","concurrency":2,"metric":"req_per_s","sealed":10,"replayed":12.5,"change":0.25,"change_unit":"relative","verdict":"DIFF"}`; string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(diffs[4])
	if want := `{"target":"a","concurrency":2,"metric":"wer","sealed":0.05,"replayed":null,"change":null,"change_unit":"points","verdict":"DIFF","reason":"wer is null in the replay"}`; string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
}

func TestCompareNaN(t *testing.T) {
	if v := within(f64(math.NaN()), 1); v != Diff {
		t.Errorf("NaN change: %s", v)
	}
}

// A fall beyond 100 % cannot show as a relative change; the ratio holds
// the tolerance both ways.
func TestCompareToleranceIsSymmetric(t *testing.T) {
	level := func(rps, p50 float64) schemas.Claims {
		m := schemas.Metrics{Requests: 400, Succeeded: 400, ReqPerS: rps, RTFx: &rps, LatencyP50S: &p50, LatencyP99S: &p50}
		return schemas.Claims{Targets: []schemas.TargetClaims{{Target: "a", Levels: []schemas.LevelClaims{{Concurrency: 1, Median: m}}}}}
	}
	diffs := Compare(level(25, 0.04), level(2.5, 0.4), Tolerance{Relative: 2, QualityPoints: 1})
	for _, d := range diffs {
		want := Diff
		if d.Metric == "succeeded" || d.Metric == "failed" {
			want = Same
		}
		if d.Verdict != want {
			t.Errorf("%s: %s (change %v), want %s", d.Metric, d.Verdict, *d.Change, want)
		}
	}
	// Within the ratio both ways: 25 -> 10 is 2.5x, beyond 100 % but within 200 %.
	for _, d := range Compare(level(25, 0.04), level(10, 0.1), Tolerance{Relative: 2, QualityPoints: 1}) {
		if d.Verdict != Same {
			t.Errorf("%s: %s, want OK within 200 %%", d.Metric, d.Verdict)
		}
	}
}

// A latency neither side measured (no request succeeded) is not a
// difference; one only the replay lacks is (trial finding 8: null, not
// 0 s, so a replay cannot "match" a sealed 0).
func TestCompareNullLatency(t *testing.T) {
	none := func() schemas.LevelClaims {
		l := level(1, 0, 0, 0, 16, nil)
		for _, m := range []*schemas.Metrics{&l.Median, &l.Min, &l.Max, &l.Repeats[0]} {
			m.RTFx, m.LatencyP50S, m.LatencyP99S = nil, nil, nil
		}
		return l
	}
	sealed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{none()}})
	got := rows(Compare(sealed, sealed, DefaultTolerance))
	if strings.Contains(got, "DIFF") || !strings.Contains(got, "latency_p50_s") {
		t.Errorf("nothing measured on both sides:\n%s", got)
	}
	replayed := claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, 0.1, 16, 0, nil)}})
	got = rows(Compare(sealed, replayed, DefaultTolerance))
	if !strings.Contains(got, "a c1 latency_p50_s DIFF - the sealed run measured no successful request") {
		t.Errorf("sealed none, replay some:\n%s", got)
	}
}

// A percentile of too few requests per repeat (StableRequests: p99 368,
// p50 6) that moves beyond the tolerance is UNSTABLE, not a DIFF: shown,
// never counted, so the p99 of 8 requests (their slowest, one straggler)
// cannot fail a replay alone. With enough requests, or with AllTails (a
// replay sealed before the rule), it is a DIFF again.
func TestCompareUnstableTail(t *testing.T) {
	if StableRequests(0.99) != 368 || StableRequests(0.5) != 6 || StableRequests(0.9) != 36 {
		t.Fatalf("StableRequests: p99 %d, p50 %d, p90 %d", StableRequests(0.99), StableRequests(0.5), StableRequests(0.9))
	}
	at := func(n int, p99 float64) schemas.Claims {
		l := level(1, 10, 0.1, n, 0, nil)
		l.Median.LatencyP99S = ptr(p99)
		return claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{l}})
	}
	// The trial: 8 requests a repeat, p99 +10.2 % (beyond 10 %).
	diffs := Compare(at(8, 0.200), at(8, 0.2204), DefaultTolerance)
	got := rows(diffs)
	if !strings.Contains(got, "a c1 latency_p99_s UNSTABLE +0.102 p99 of 8 requests per repeat: too few to judge (it needs 368") || Differing(diffs) != 0 || Unstables(diffs) != 1 {
		t.Errorf("p99 of 8 requests:\n%s", got)
	}
	// The side with fewer requests decides: 8 against 1000 is still unstable.
	if d := Compare(at(1000, 0.200), at(8, 0.2204), DefaultTolerance)[3]; d.Verdict != Unstable {
		t.Errorf("1000 sealed, 8 replayed: %+v", d)
	}
	if d := Compare(at(368, 0.200), at(368, 0.2204), DefaultTolerance)[3]; d.Metric != "latency_p99_s" || d.Verdict != Diff || d.Reason != "" {
		t.Errorf("p99 of 368 requests: %+v, want a DIFF", d)
	}
	if d := Compare(at(8, 0.200), at(8, 0.2204), Tolerance{Relative: 0.1, QualityPoints: 1, AllTails: true})[3]; d.Verdict != Diff {
		t.Errorf("AllTails: %+v, want a DIFF", d)
	}
	// Within the tolerance it is as unstable: too few requests confirm
	// nothing either (the trial: p99 of 48 "OK" when it agreed, UNSTABLE
	// when it moved); of enough requests it is OK.
	if d := Compare(at(8, 0.200), at(8, 0.21), DefaultTolerance)[3]; d.Verdict != Unstable {
		t.Errorf("within, 8 requests: %+v", d)
	}
	if d := Compare(at(368, 0.200), at(368, 0.21), DefaultTolerance)[3]; d.Verdict != Same || d.Reason != "" {
		t.Errorf("within, 368 requests: %+v", d)
	}
	// p50 of 5 requests is unstable too; of 8 it is a DIFF.
	p50 := func(n int, v float64) schemas.Claims {
		return claimsOf(schemas.TargetClaims{Target: "a", Levels: []schemas.LevelClaims{level(1, 10, v, n, 0, nil)}})
	}
	if d := Compare(p50(5, 0.1), p50(5, 0.2), DefaultTolerance)[2]; d.Metric != "latency_p50_s" || d.Verdict != Unstable {
		t.Errorf("p50 of 5: %+v", d)
	}
	if d := Compare(p50(8, 0.1), p50(8, 0.2), DefaultTolerance)[2]; d.Verdict != Diff {
		t.Errorf("p50 of 8: %+v", d)
	}
}
