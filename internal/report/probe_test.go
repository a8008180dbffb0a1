package report

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// The cache probe's verdict is a caveat (caches, no effect, undecided
// where the interval straddles the noise bound: issue 40's 1.36 with
// 1.02–1.54, not probed); a run with --no-perturb against a
// target the probe found caching is flagged inflated by caching, and only
// such a run.
func TestProbeCaveats(t *testing.T) {
	caching := schemas.CacheProbe{Target: "sglang-omni", Repeats: 16, Variants: 16, RepeatMedianMs: 2, VariantMedianMs: 20,
		Speedup: 10, SpeedupLo: 8, SpeedupHi: 12, Caches: true}
	none := schemas.CacheProbe{Target: "vllm-omni", Repeats: 16, Variants: 16, RepeatMedianMs: 20, VariantMedianMs: 20,
		Speedup: 1, SpeedupLo: 0.9, SpeedupHi: 1.1}
	unsure := schemas.CacheProbe{Target: "vllm-omni", Repeats: 16, Variants: 16, RepeatMedianMs: 20, VariantMedianMs: 27.2,
		Speedup: 1.36, SpeedupLo: 1.02, SpeedupHi: 1.54, Verdict: claims.ProbeUnsure}
	f := false
	disagrees := none
	disagrees.CounterGrowth, disagrees.CounterAgrees = map[string]float64{"vllm:mm_cache_hits_total": 16}, &f
	for _, tc := range []struct {
		name     string
		perturb  bool
		probes   []schemas.CacheProbe
		want     []string
		notWant  []string
		language string
	}{
		{"caches, perturbed", true, []schemas.CacheProbe{caching, none},
			[]string{"**Cache probe:** sglang-omni caches identical audio (repeats 10.0 times faster, 95 % interval 8.00 to 12.00); vllm-omni no cache effect seen (ratio within noise) (speedup 1.00"},
			[]string{"inflated by caching"}, "en"},
		{"caches, unperturbed", false, []schemas.CacheProbe{caching, none},
			[]string{"Inflated by caching:", "sglang-omni caches identical audio and this run sent every clip unchanged"},
			[]string{"vllm-omni caches identical"}, "en"},
		{"no cache, unperturbed", false, []schemas.CacheProbe{none}, []string{"vllm-omni no cache effect seen"}, []string{"Inflated by caching"}, "en"},
		{"not probed", true, []schemas.CacheProbe{{Target: "vllm-omni"}}, []string{"vllm-omni not probed"}, nil, "en"},
		{"asked, missing", true, nil, []string{"vllm-omni was to be probed", "sglang-omni was to be probed"}, nil, "en"},
		{"counter disagrees", true, []schemas.CacheProbe{disagrees}, []string{"vllm-omni no cache effect seen (ratio within noise) (speedup ", `), though its vllm:mm\_cache\_hits\_total grew by 16 over the probe: the latencies and the counter disagree.`}, nil, "en"},
		{"undecided", false, []schemas.CacheProbe{unsure}, []string{"vllm-omni undecided: the interval straddles the noise bound (1.10), so a cache is neither shown nor excluded; run more pairs", "speedup 1.36, 95 % interval 1.02 to 1.54"},
			[]string{"no cache effect", "Inflated by caching"}, "en"},
		{"undecided, zh", false, []schemas.CacheProbe{unsure}, []string{"未定"}, []string{"未见缓存效应"}, "zh"},
		{"zh", false, []schemas.CacheProbe{caching}, []string{"因缓存而虚高", "重复请求快 10.0 倍"}, nil, "zh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture()
			in.Run.Protocol.Perturb = tc.perturb
			in.Claims.Probes = tc.probes
			in.Run.Protocol.CacheProbe = 16
			in.Lang = tc.language
			cav := caveatsOf(mdOf(t, in))
			for _, w := range tc.want {
				if !strings.Contains(cav, w) {
					t.Errorf("caveats lack %q:\n%s", w, cav)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(cav, w) {
					t.Errorf("caveats say %q:\n%s", w, cav)
				}
			}
		})
	}
}

// A run without perturbation against a target whose probe says it caches
// identical audio compares cached serving: the conclusion says "not
// comparable", never a lead or "no difference"; with perturbation on, the
// same probe changes no verdict.
func TestConclusionInflatedByCaching(t *testing.T) {
	caching := schemas.CacheProbe{Target: "sglang-omni", Repeats: 16, Variants: 16, RepeatMedianMs: 2, VariantMedianMs: 20,
		Speedup: 10, SpeedupLo: 8, SpeedupHi: 12, Caches: true}
	for _, perturb := range []bool{false, true} {
		in := fixture()
		in.Run.Protocol.Perturb = perturb
		in.Run.Protocol.CacheProbe = 16
		in.Claims.Probes = []schemas.CacheProbe{caching}
		s := section(mdOf(t, in), "Conclusion")
		got := strings.Contains(s, "not comparable: sglang-omni answered from its cache (perturbation was off)")
		if got == perturb {
			t.Errorf("perturb %v: conclusion names the cache %v:\n%s", perturb, got, s)
		}
	}
}
