package claims

import (
	"math/rand/v2"
	"reflect"
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
