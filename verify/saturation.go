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

// KindClientBusy: the client host was busy (its CPU or load) while
// measuring, but the client's own evidence shows it kept up: its workers'
// gaps show no stall (check 7, WARN, milder than KindClientSaturated).
const KindClientBusy Kind = "client-host-busy"

// ClientBusyTail is what the busy finding (and the report's caveat) ends
// with.
const ClientBusyTail = "the load it sent is not in doubt"

// checkClientSaturation (check 7) reads the client from what the run
// sealed, by internal/claims' signs (saturation.go there). The client's
// own evidence is its workers' gaps (claims.ClientStalled: a step whose
// workers were idle over 2 % of their time, with a dispatch-gap p99 above
// 1 ms or a stall of the stall rule in its measured phase); the host's is a measured window whose CPU mean
// (claims' host_cpu_mean, checked against the samples by check 6) is at
// least 90 %, or a 1-minute load average above env/host.json's cpus at
// the start of a level's first step. Three outcomes:
//
//   - broken: a step's gaps show the client stalled: one
//     KindClientSaturated WARN for the run, naming how many steps and the
//     worst of each sign (the host's with them): the figures are the
//     server's and the client's queueing together;
//   - held, on a busy host: the host's signs without a stall: one
//     KindClientBusy WARN, with benchseal's own CPU share (claims'
//     client_cpu_mean, getrusage) and its workers' idle share
//     (claims.WorkerIdleShare), each the highest over the steps: the load
//     it sent is not in doubt (issue 36: the host's CPU blamed benchseal
//     for its neighbours);
//   - not observed: a run without host samples, for the host's signs
//     (said in the summary), never a pass of them.
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
	var cpu, gap, stall, own, idle worst
	var loadLevels []string
	loadMax := 0.0
	steps, sampled, ownSampled := 0, false, false
	seenLevel := map[int]bool{}
	open := ev.run.Protocol.Mode == schemas.ModeOpen
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
		if m := repeatOf(ev.claims, k); m != nil && m.ClientCPUMean != nil {
			ownSampled = true
			if own.step == "" || *m.ClientCPUMean > own.v {
				own.v, own.step = *m.ClientCPUMean, k.String()
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
		if open {
			continue
		}
		if claims.ClientStalled(recs, k.concurrency) {
			stall.n++
			if g, ok := claims.DispatchGapP99(recs); ok && g > claims.SaturatedGap {
				gap.n++
				if ms := g.Seconds() * 1e3; ms > gap.v {
					gap.v, gap.step = ms, k.String()
				}
			}
		}
		if sh, ok := claims.WorkerIdleShare(recs, k.concurrency); ok && (idle.step == "" || sh > idle.v) {
			idle.v, idle.step = sh, k.String()
		}
		for _, s := range claims.Stalls(recs, k.concurrency) {
			if s.Phase == schemas.PhaseMeasure && 100*s.Share > stall.v {
				stall.v, stall.step = 100*s.Share, k.String()
			}
		}
	}
	if steps == 0 {
		return
	}
	if !sampled && len(ev.tel.Host) == 0 {
		no.add("the client host's CPU and load (no telemetry/host.jsonl samples)")
	}
	var host []string
	if cpu.n > 0 {
		host = append(host, fmt.Sprintf("CPU mean at or above %.0f %% over the measured window in %d of %d steps (highest %.0f %%, %s)", claims.SaturatedCPUPct, cpu.n, steps, cpu.v, cpu.step))
	}
	if len(loadLevels) > 0 {
		host = append(host, fmt.Sprintf("load average above its %d CPUs at the start of C = %s (highest %.2f)", cpus, strings.Join(slices.Compact(loadLevels), ", "), loadMax))
	}
	if stall.n > 0 {
		parts := slices.Clone(host)
		if gap.n > 0 {
			parts = append(parts, fmt.Sprintf("dispatch-gap p99 above %s in %d of %d steps (highest %.1f ms, %s)", claims.SaturatedGap, gap.n, steps, gap.v, gap.step))
		}
		if stall.step != "" {
			parts = append(parts, fmt.Sprintf("workers stalled over %s between requests (largest share %.1f %% of the worker time, %s)", claims.DispatchTolerance, stall.v, stall.step))
		}
		c.warnKindf(KindClientSaturated, "telemetry/host.jsonl", "the client host was saturated: %s: %s", strings.Join(parts, "; "), ClientSaturatedAdvice)
		return
	}
	if len(host) == 0 {
		return
	}
	ownText := "benchseal's own CPU was not recorded (a run made before it)"
	if ownSampled {
		ownText = fmt.Sprintf("benchseal itself used %.1f %% of the host's CPUs (highest, %s)", own.v, own.step)
	}
	if idle.step != "" {
		ownText += fmt.Sprintf(" and its workers were idle %.1f %% of the time (highest, %s)", 100*idle.v, idle.step)
	}
	c.warnKindf(KindClientBusy, "telemetry/host.jsonl", "the client host was busy (%s) but %s: %s", strings.Join(host, "; "), ownText, ClientBusyTail)
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
