package verify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// KindClientSaturated: the client host was saturated while measuring
// (check 7, WARN): latencies include client-side queueing.
const KindClientSaturated Kind = "client-saturated"

// ClientSaturatedAdvice is what the finding (and the report's caveat)
// ends with.
const ClientSaturatedAdvice = "latencies include client-side queueing; run the client on its own host"

// checkClientSaturation (check 7) reads the client host from what the run
// sealed, by internal/claims' three signs (saturation.go there): a
// measured window whose client host CPU mean (claims' host_cpu_mean,
// checked against the samples by check 6) is at least 90 %, a 1-minute
// load average above env/host.json's cpus in the host sample at the
// start of a level's first step, or a step whose dispatch-gap p99 is
// above 1 ms. Any of them is one WARN for the run, naming how many steps
// and the worst of each: the figures are the server's and the client's
// queueing together. A run without host samples is not observed for the
// first two (said in the summary), never a pass of them.
func checkClientSaturation(c *Check, ev *evidence, no *notObserved) {
	cpus := 0
	if ev.f.has(schemas.HostInfoFile) {
		if b, err := ev.f.read(schemas.HostInfoFile); err == nil {
			var h schemas.HostInfo
			if json.Unmarshal(b, &h) == nil {
				cpus = h.CPUs
			}
		}
	}
	type worst struct {
		n    int
		v    float64
		step string
	}
	var cpu, gap worst
	var loadLevels []string
	loadMax := 0.0
	steps, sampled := 0, false
	seenLevel := map[int]bool{}
	for _, k := range schedule(ev.run) {
		recs := ev.records[k.file()]
		if len(recs) == 0 {
			continue
		}
		steps++
		first := recs[0].StartNs
		for _, r := range recs {
			first = min(first, r.StartNs)
		}
		if m := repeatOf(ev.claims, k); m != nil && m.HostCPUMean != nil {
			sampled = true
			if claims.CPUSaturated(*m) {
				cpu.n++
				if *m.HostCPUMean > cpu.v {
					cpu.v, cpu.step = *m.HostCPUMean, k.String()
				}
			}
		}
		if !seenLevel[k.concurrency] {
			seenLevel[k.concurrency] = true
			if l, ok := claims.LoadAt(ev.tel.Host, first); ok && cpus > 0 && l > float64(cpus) {
				loadLevels = append(loadLevels, fmt.Sprint(k.concurrency))
				loadMax = max(loadMax, l)
			}
		}
		// An open loop's gaps are its schedule's; its lateness is
		// check 7's (KindLate).
		if g, ok := claims.DispatchGapP99(recs); ok && g > claims.SaturatedGap && ev.run.Protocol.Mode != schemas.ModeOpen {
			gap.n++
			if ms := g.Seconds() * 1e3; ms > gap.v {
				gap.v, gap.step = ms, k.String()
			}
		}
	}
	if steps == 0 {
		return
	}
	if !sampled && len(ev.tel.Host) == 0 {
		no.add("the client host's CPU and load (no telemetry/host.jsonl samples)")
	}
	var parts []string
	if cpu.n > 0 {
		parts = append(parts, fmt.Sprintf("CPU mean at or above %.0f %% over the measured window in %d of %d steps (highest %.0f %%, %s)", claims.SaturatedCPUPct, cpu.n, steps, cpu.v, cpu.step))
	}
	if len(loadLevels) > 0 {
		parts = append(parts, fmt.Sprintf("load average above its %d CPUs at the start of C = %s (highest %.2f)", cpus, strings.Join(slices.Compact(loadLevels), ", "), loadMax))
	}
	if gap.n > 0 {
		parts = append(parts, fmt.Sprintf("dispatch-gap p99 above %s in %d of %d steps (highest %.1f ms, %s)", claims.SaturatedGap, gap.n, steps, gap.v, gap.step))
	}
	if len(parts) == 0 {
		return
	}
	c.warnKindf(KindClientSaturated, "telemetry/host.jsonl", "the client host was saturated: %s: %s", strings.Join(parts, "; "), ClientSaturatedAdvice)
}

// repeatOf is claims' figures of one step, nil when claims.json has none.
func repeatOf(cl *schemas.Claims, k stepKey) *schemas.Metrics {
	if cl == nil {
		return nil
	}
	for i := range cl.Targets {
		t := &cl.Targets[i]
		if t.Target != k.target {
			continue
		}
		for j := range t.Levels {
			if l := &t.Levels[j]; l.Concurrency == k.concurrency && k.repeat >= 1 && k.repeat <= len(l.Repeats) {
				return &l.Repeats[k.repeat-1]
			}
		}
	}
	return nil
}
