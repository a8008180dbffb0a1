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

	"github.com/benchseal/benchseal/internal/engine"
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

// The probe's verdicts: caches (the interval wholly above ProbeNoise),
// no effect (wholly below it), undecided (the interval straddles it: a
// cache that saves about 10 % is neither shown nor excluded), not probed.
const (
	ProbeCaches     = "caches identical audio (repeats %.1f times faster)"
	ProbeNoEffect   = "no cache effect seen (ratio within noise)"
	ProbeUnsure     = "undecided: a cache is neither shown nor excluded; run more pairs"
	ProbeNotProbed  = "not probed"
	probeMinPerHalf = 2
)

// ProbeOf computes target's probe claim from its probe records (records
// of other phases and targets, and the warm-ups (seq < ProbeWarmup), are
// ignored; failed requests count in no median). growth is the cache counters' growth over the probe, nil where
// the server has none; seed seeds the bootstrap (the run's seed, so a
// verifier gets the same interval). The verdict is ProbeNotProbed when
// either half has fewer than two successful requests, ProbeCaches when
// the interval lies wholly above ProbeNoise, ProbeNoEffect when wholly
// below it, else ProbeUnsure (no counter agreement is claimed then).
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
	switch {
	case p.SpeedupLo > ProbeNoise:
		p.Caches, p.Verdict = true, fmt.Sprintf(ProbeCaches, p.Speedup)
	case p.SpeedupHi < ProbeNoise:
		p.Verdict = ProbeNoEffect
	default:
		p.Verdict = ProbeUnsure
	}
	// An undecided probe neither agrees nor disagrees with a counter.
	if _, hits, ok := ProbeCounter(p); ok && p.Verdict != ProbeUnsure {
		agrees := (hits > 0) == p.Caches
		p.CounterAgrees = &agrees
	}
	return p
}

// ProbeIsRepeat says whether request seq of a probe of pairs pairs sends
// the clip's identical bytes (a repeat) rather than a variant: seq 0 (the
// warm-up that primes a cache), then within pair i (seqs ProbeWarmup+2i
// and +2i+1) the first on even i, the second on odd i, so that neither
// half always follows the other. The runner sends this schedule and
// verify holds the records to it.
func ProbeIsRepeat(seq, pairs int) bool {
	if seq == 0 {
		return true
	}
	k := seq - ProbeWarmup
	if k < 0 || k >= 2*pairs {
		return false
	}
	return k%2 == (k/2)%2
}

// ProbeGrowth is the growth of each cache counter over a probe (after
// minus before, every counter in both scrapes), nil when a scrape is
// missing or a counter went down (the server restarted or reset its
// metrics during the probe: no growth means anything then).
func ProbeGrowth(t schemas.ProbeTelemetry) map[string]float64 {
	if t.CacheBefore == nil || t.CacheAfter == nil {
		return nil
	}
	out := map[string]float64{}
	for name, a := range t.CacheAfter {
		b, ok := t.CacheBefore[name]
		if !ok {
			continue
		}
		if a < b {
			return nil
		}
		out[name] = a - b
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// probeHitCounters are the counters whose growth over a probe counts
// whole inputs answered from a cache, which is what the probe's repeats
// test: vLLM's multimodal cache ("Multi-modal cache hits, in terms of
// number of cached items", vllm/v1/metrics/loggers.py@a6f0308c, see
// internal/engine). Prefix-cache counters count tokens, which distinct
// audio grows too (the prompt template is shared), so they say nothing
// about identical audio.
var probeHitCounters = []string{engine.VLLMMMCacheHits}

// ProbeCounter is the server's count of hits over the probe p, from its
// CounterGrowth: the counter's name and growth; ok is false when no such
// counter was scraped before and after the probe.
func ProbeCounter(p schemas.CacheProbe) (counter string, hits float64, ok bool) {
	for _, name := range probeHitCounters {
		if g, found := p.CounterGrowth[name]; found {
			return name, g, true
		}
	}
	return "", 0, false
}

// ProbeBearing is what a target's cache probe means for the figures of
// the run it was part of. verify's fairness check and the report both
// read it from ProbeBearingOf, so they never tell different stories.
type ProbeBearing int

const (
	// ProbeNotAsked: run.json asks for no cache probe (--no-cache-probe,
	// one target, or a run made before the probe existed).
	ProbeNotAsked ProbeBearing = iota
	// ProbeMissing: run.json asks for one, claims have none for the target.
	ProbeMissing
	// ProbeUndecided: probed, but a half has fewer than two successes
	// (verdict ProbeNotProbed).
	ProbeUndecided
	// ProbeNoCache: no cache effect seen.
	ProbeNoCache
	// ProbeInflated: the target caches identical audio and the run sent
	// every clip unchanged (--no-perturb): its figures are inflated by
	// caching.
	ProbeInflated
	// ProbeHeld: the target caches identical audio, but every request of
	// the sweep sent audio never sent before, so its cache never fired.
	ProbeHeld
	// ProbeStraddles: probed, but the speedup's interval straddles
	// ProbeNoise (verdict ProbeUnsure): a cache is neither shown nor
	// excluded.
	ProbeStraddles
)

// ProbeBearingOf is the bearing of target's cache probe in run, whose
// claims are c, with the probe's claim (nil when it has none).
func ProbeBearingOf(run schemas.Run, c schemas.Claims, target string) (ProbeBearing, *schemas.CacheProbe) {
	var p *schemas.CacheProbe
	for i := range c.Probes {
		if c.Probes[i].Target == target {
			p = &c.Probes[i]
			break
		}
	}
	switch {
	case p == nil && run.Protocol.CacheProbe > 0:
		return ProbeMissing, nil
	case p == nil:
		return ProbeNotAsked, nil
	case !p.Caches && (p.Repeats < probeMinPerHalf || p.Variants < probeMinPerHalf):
		return ProbeUndecided, p
	case !p.Caches && p.Verdict == ProbeUnsure:
		return ProbeStraddles, p
	case !p.Caches:
		return ProbeNoCache, p
	case run.Protocol.Perturb:
		return ProbeHeld, p
	default:
		return ProbeInflated, p
	}
}
