package claims

// The active cache probe (issue 16): per target, after a warm-up, Pairs
// pairs of requests at concurrency 1, interleaved: one clip's identical
// bytes (a repeat: SampleIndex -1, as --no-perturb sends) and a distinct
// 1-LSB variant of the same clip. A server that answers the repeats
// faster than the variants recognises identical audio (MLPerf TEST04 for
// audio). Probe computes the claim from the probe records alone, so
// verify recomputes it the way it recomputes every claim.

import (
	"fmt"
	"slices"

	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// ProbePairs is the default number of probe pairs per target: 16 pairs
// (32 requests, plus ProbeWarmup) give each median 16 values, enough for a
// bootstrap interval that separates a cache hit (the answer skips the
// encoder) from noise, and cost 34 requests: 0.6 % of a default sweep's
// (levels 1,16,32,64,128, at least 8*C requests each, 3 repeats: 5784
// requests), under the 5 % budget even for one target.
const ProbePairs = 16

// ProbeWarmup is the number of warm-up requests before the pairs: seqs
// 0 and 1 of a probe file (the repeat, which primes a cache, then a
// variant), phase probe like the pairs and left out of the medians.
const ProbeWarmup = 2

// ProbeNoise is the speedup the probe's interval must lie wholly above to
// say a server caches: repeats at least 10 % faster. A cache hit skips the
// audio encoder (vLLM's multimodal cache) or the whole request (the sim),
// far more than 10 %; a bound at 1 would call a server without a cache
// caching in 1 run of 40 by chance alone.
const ProbeNoise = 1.1

// The probe's verdicts.
const (
	ProbeCaches     = "caches identical audio (repeats %.1f times faster)"
	ProbeNoEffect   = "no cache effect seen (ratio within noise)"
	ProbeNotProbed  = "not probed"
	probeMinPerHalf = 2
)

// ProbeOf computes target's probe claim from its probe records (records
// of other phases and targets, and the warm-ups (seq < ProbeWarmup), are
// ignored; failed requests count in no median). growth is the cache counters' growth over the probe, nil where
// the server has none; seed seeds the bootstrap (the run's seed, so a
// verifier gets the same interval). The verdict is ProbeCaches when the
// interval lies wholly above ProbeNoise, ProbeNotProbed when either half has fewer
// than two successful requests, else ProbeNoEffect.
func ProbeOf(target string, recs []schemas.Record, growth map[string]float64, seed uint64) schemas.CacheProbe {
	var rep, vari []float64
	for _, r := range recs {
		if r.Target != target || r.Phase != schemas.PhaseProbe || r.Seq < ProbeWarmup || !r.OK || r.EndNs <= r.StartNs {
			continue
		}
		ms := float64(r.EndNs-r.StartNs) / 1e6
		if r.SampleIndex < 0 {
			rep = append(rep, ms)
		} else {
			vari = append(vari, ms)
		}
	}
	p := schemas.CacheProbe{Target: target, Repeats: len(rep), Variants: len(vari), CounterGrowth: growth, Verdict: ProbeNotProbed}
	if len(rep) < probeMinPerHalf || len(vari) < probeMinPerHalf {
		return p
	}
	p.RepeatMedianMs, p.VariantMedianMs = median(slices.Clone(rep)), median(slices.Clone(vari))
	p.Speedup = p.VariantMedianMs / p.RepeatMedianMs
	p.SpeedupLo, p.SpeedupHi = verdict.RatioInterval(vari, rep, verdict.Options{Seed: seed})
	if p.SpeedupLo > ProbeNoise {
		p.Caches, p.Verdict = true, fmt.Sprintf(ProbeCaches, p.Speedup)
	} else {
		p.Verdict = ProbeNoEffect
	}
	return p
}
