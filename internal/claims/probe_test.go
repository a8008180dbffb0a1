package claims

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// probeRecs makes n interleaved pairs whose repeats take rep ms and
// variants vari ms, with up to jitter ms of seeded noise.
func probeRecs(n int, rep, vari, jitter float64) []schemas.Record {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []schemas.Record
	at := int64(0)
	for i := range 2 * n {
		ms, si := vari, int64(i)
		if i%2 == 0 {
			ms, si = rep, -1
		}
		d := int64((ms + jitter*rng.Float64()) * 1e6)
		out = append(out, schemas.Record{Target: "t", Phase: schemas.PhaseProbe, Seq: ProbeWarmup + i, SampleIndex: si, OK: true, StartNs: at, EndNs: at + d})
		at += d
	}
	return out
}

func TestProbeOfCaches(t *testing.T) {
	recs := probeRecs(ProbePairs, 10, 40, 2)
	// Warm-ups (slow, as a first request is) count in no median.
	recs = append(recs, schemas.Record{Target: "t", Phase: schemas.PhaseProbe, Seq: 0, SampleIndex: -1, OK: true, EndNs: 1e9},
		schemas.Record{Target: "t", Phase: schemas.PhaseProbe, Seq: 1, SampleIndex: 3, OK: true, EndNs: 1e9})
	// Sweep records and another target's are not the probe's.
	recs = append(recs, schemas.Record{Target: "t", Phase: schemas.PhaseMeasure, SampleIndex: -1, OK: true, EndNs: 1e9},
		schemas.Record{Target: "u", Phase: schemas.PhaseProbe, SampleIndex: -1, OK: true, EndNs: 1e9})
	p := ProbeOf("t", recs, map[string]float64{"vllm:mm_cache_hits": 16}, 7)
	if !p.Caches || p.Repeats != ProbePairs || p.Variants != ProbePairs {
		t.Fatalf("probe = %+v", p)
	}
	if p.Speedup < 3 || p.Speedup > 4.2 || p.SpeedupLo <= 1 || p.SpeedupLo > p.Speedup || p.SpeedupHi < p.Speedup {
		t.Errorf("speedup %v [%v, %v]", p.Speedup, p.SpeedupLo, p.SpeedupHi)
	}
	if !strings.HasPrefix(p.Verdict, "caches identical audio (repeats 3.") {
		t.Errorf("verdict %q", p.Verdict)
	}
	if q := ProbeOf("t", recs, p.CounterGrowth, 7); q.SpeedupLo != p.SpeedupLo || q.SpeedupHi != p.SpeedupHi {
		t.Errorf("same seed, other interval: %+v vs %+v", q, p)
	}
}

func TestProbeOfNoEffect(t *testing.T) {
	p := ProbeOf("t", probeRecs(ProbePairs, 20, 20, 8), nil, 7)
	if p.Caches || p.Verdict != ProbeNoEffect || p.SpeedupLo > 1 || p.SpeedupHi < 1 {
		t.Errorf("probe = %+v", p)
	}
}

// A speedup whose interval straddles the noise bound is undecided, not
// "no cache effect" (issue 40's 1.36 with 1.02–1.54): halves 36 ms apart
// with 100 ms of spread each.
func TestProbeOfUndecided(t *testing.T) {
	recs := probeRecs(ProbePairs, 100, 136, 100) // 100 ms of spread either half
	p := ProbeOf("t", recs, map[string]float64{"vllm:mm_cache_hits": 0}, 7)
	if p.Caches || p.Verdict != ProbeUnsure || !(p.SpeedupLo <= ProbeNoise && p.SpeedupHi >= ProbeNoise) {
		t.Fatalf("probe = %+v", p)
	}
	if p.CounterAgrees != nil {
		t.Errorf("an undecided probe claims counter agreement: %v", *p.CounterAgrees)
	}
	if b, _ := ProbeBearingOf(testRun(), schemas.Claims{Probes: []schemas.CacheProbe{p}}, "t"); b != ProbeStraddles {
		t.Errorf("bearing %v, want ProbeStraddles", b)
	}
}

func TestComputeKeepsProbeApart(t *testing.T) {
	run := testRun()
	var sweep []schemas.Record
	for rep := 1; rep <= 3; rep++ {
		sweep = append(sweep, oneRepeat("a", rep)...)
		sweep = append(sweep, oneRepeat("b", rep)...)
	}
	want, err := Compute(run, sweep)
	if err != nil {
		t.Fatal(err)
	}
	probe := probeRecs(ProbePairs, 10, 40, 2)
	for i := range probe {
		probe[i].Target, probe[i].Concurrency, probe[i].Repeat = "a", 1, 1
	}
	got, err := Compute(run, append(slices.Clone(sweep), probe...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Probes) != 1 || got.Probes[0].Target != "a" || !got.Probes[0].Caches {
		t.Fatalf("probes = %+v", got.Probes)
	}
	if p := ProbeOf("a", probe, nil, run.Seed); !reflect.DeepEqual(p, got.Probes[0]) {
		t.Errorf("Compute's probe %+v, ProbeOf's %+v", got.Probes[0], p)
	}
	got.Probes = nil
	if !reflect.DeepEqual(got, want) {
		t.Error("the probe's records changed the sweep's claims")
	}
}

func TestProbeOfNotProbed(t *testing.T) {
	recs := probeRecs(ProbePairs, 10, 40, 2)
	for i := range recs {
		if recs[i].SampleIndex < 0 {
			recs[i].OK = false
		}
	}
	if p := ProbeOf("t", recs, nil, 7); p.Verdict != ProbeNotProbed || p.Caches || p.Repeats != 0 {
		t.Errorf("all repeats failed: %+v", p)
	}
	if p := ProbeOf("t", nil, nil, 7); p.Verdict != ProbeNotProbed {
		t.Errorf("no records: %+v", p)
	}
}

// The runner's schedule: seq 0 a repeat, seq 1 a variant, then each pair
// holds one of each, the repeat first on even pairs; nothing past the
// pairs.
func TestProbeIsRepeat(t *testing.T) {
	var got []bool
	for seq := range ProbeWarmup + 2*4 + 1 {
		got = append(got, ProbeIsRepeat(seq, 4))
	}
	want := []bool{true, false, true, false, false, true, true, false, false, true, false}
	if !slices.Equal(got, want) {
		t.Errorf("ProbeIsRepeat(0..10, 4) = %v, want %v", got, want)
	}
}

func TestProbeGrowth(t *testing.T) {
	line := schemas.ProbeTelemetry{Target: "t", Probe: 1,
		CacheBefore: map[string]float64{"vllm:mm_cache_hits_total": 3, "vllm:mm_cache_queries_total": 10, "only_before": 1},
		CacheAfter:  map[string]float64{"vllm:mm_cache_hits_total": 19, "vllm:mm_cache_queries_total": 44, "only_after": 1}}
	if g := ProbeGrowth(line); !reflect.DeepEqual(g, map[string]float64{"vllm:mm_cache_hits_total": 16, "vllm:mm_cache_queries_total": 34}) {
		t.Errorf("growth = %v", g)
	}
	line.CacheAfter["vllm:mm_cache_hits_total"] = 2 // a restart: nothing means anything
	if g := ProbeGrowth(line); g != nil {
		t.Errorf("growth over a reset = %v, want none", g)
	}
	if g := ProbeGrowth(schemas.ProbeTelemetry{CacheAfter: line.CacheAfter}); g != nil {
		t.Errorf("growth without a scrape before = %v, want none", g)
	}
}

// counter_agrees compares the item-hit counter with the latencies, and is
// absent where there is no such counter (prefix-cache tokens say nothing
// about identical audio).
func TestProbeCounterAgrees(t *testing.T) {
	caching, none := probeRecs(ProbePairs, 10, 40, 2), probeRecs(ProbePairs, 20, 20, 8)
	for _, tc := range []struct {
		name   string
		recs   []schemas.Record
		growth map[string]float64
		want   *bool
	}{
		{"hits and faster", caching, map[string]float64{"vllm:mm_cache_hits_total": 16}, ptr(true)},
		{"no hit and no effect", none, map[string]float64{"vllm:mm_cache_hits_total": 0}, ptr(true)},
		{"hits without effect", none, map[string]float64{"vllm:mm_cache_hits_total": 16}, ptr(false)},
		{"faster without hits", caching, map[string]float64{"vllm:mm_cache_hits_total": 0}, ptr(false)},
		{"prefix tokens only", caching, map[string]float64{"vllm:prefix_cache_hits_total": 0}, nil},
		{"no counter", caching, nil, nil},
	} {
		p := ProbeOf("t", tc.recs, tc.growth, 7)
		if !reflect.DeepEqual(p.CounterAgrees, tc.want) {
			t.Errorf("%s: counter_agrees = %v, want %v", tc.name, p.CounterAgrees, tc.want)
		}
	}
}

func TestProbeBearing(t *testing.T) {
	caches := schemas.CacheProbe{Target: "a", Repeats: 16, Variants: 16, Caches: true, Verdict: "caches identical audio (repeats 9.0 times faster)"}
	none := schemas.CacheProbe{Target: "a", Repeats: 16, Variants: 16, Verdict: ProbeNoEffect}
	short := schemas.CacheProbe{Target: "a", Repeats: 1, Variants: 16, Verdict: ProbeNotProbed}
	for _, tc := range []struct {
		name    string
		asked   int
		perturb bool
		probes  []schemas.CacheProbe
		want    ProbeBearing
	}{
		{"not asked", 0, true, nil, ProbeNotAsked},
		{"asked, missing", 16, true, nil, ProbeMissing},
		{"undecided", 16, true, []schemas.CacheProbe{short}, ProbeUndecided},
		{"no cache", 16, false, []schemas.CacheProbe{none}, ProbeNoCache},
		{"caches, perturbed", 16, true, []schemas.CacheProbe{caches}, ProbeHeld},
		{"caches, unperturbed", 16, false, []schemas.CacheProbe{caches}, ProbeInflated},
	} {
		run := schemas.Run{Protocol: schemas.Protocol{CacheProbe: tc.asked, Perturb: tc.perturb}}
		if got, _ := ProbeBearingOf(run, schemas.Claims{Probes: tc.probes}, "a"); got != tc.want {
			t.Errorf("%s: bearing %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestCompareProbes(t *testing.T) {
	sealed := schemas.Claims{Probes: []schemas.CacheProbe{
		{Target: "a", Caches: true, Verdict: "caches identical audio (repeats 9.0 times faster)"},
		{Target: "b", Verdict: ProbeNoEffect}, {Target: "c", Verdict: ProbeNoEffect}}}
	replayed := schemas.Claims{Probes: []schemas.CacheProbe{
		{Target: "a", Caches: true, Verdict: "caches identical audio (repeats 8.0 times faster)"},
		{Target: "b", Caches: true, Verdict: "caches identical audio (repeats 3.0 times faster)"}, {Target: "d", Verdict: ProbeNoEffect}}}
	got := CompareProbes(sealed, replayed)
	want := []ProbeComparison{
		{"a", "caches identical audio (repeats 9.0 times faster)", "caches identical audio (repeats 8.0 times faster)", true},
		{"b", ProbeNoEffect, "caches identical audio (repeats 3.0 times faster)", false},
		{"c", ProbeNoEffect, "", false}, {"d", "", ProbeNoEffect, false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CompareProbes = %+v\nwant %+v", got, want)
	}
	var b strings.Builder
	if err := WriteProbeComparison(&b, got); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^b +no cache effect seen \(ratio within noise\) +caches identical audio \(repeats 3\.0 times faster\) +no$`).MatchString(b.String()) ||
		!regexp.MustCompile(`(?m)^c +no cache effect seen \(ratio within noise\) +- +-$`).MatchString(b.String()) {
		t.Errorf("table:\n%s", b.String())
	}
}
