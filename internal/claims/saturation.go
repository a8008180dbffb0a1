package claims

import (
	"slices"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// The client as a suspect (issue 23): a closed loop measures the server
// only while the client keeps up. A step whose client host was saturated
// measured client-side queueing too. Three signs, each from what the run
// sealed, any one of which marks the step:
//
//   - SaturatedCPUPct: the client host's CPU mean over the measured
//     window (claims' host_cpu_mean, the mean cpu_pct of the host samples
//     in it) at 90 % or more: the workers compete with everything else
//     for the cores;
//   - the 1-minute load average of the host sample taken at the start of
//     a level's first step above the host's logical CPUs (env/host.json
//     cpus): more runnable threads than cores when the level began;
//   - SaturatedGap: the p99 of the measured phase's dispatch gaps (a
//     worker's next request start minus its previous one's end,
//     DispatchGapP99) above 1 ms. benchseal's workers take 0.05-0.07 ms
//     (median) on a busy machine; above 1 ms at the 99th percentile the
//     client, not the server, sets the pace of one request in a hundred
//     (tools/loadcmp holds benchseal to that 1 ms).
//
// The first two are the host's; only the third, and the stall rule's
// gaps, are the client's own evidence (issue 36: the host's CPU read
// benchseal's neighbours as benchseal). So a step is "client stalled"
// (ClientStalled) only where its worker gaps show it; a busy host whose
// workers kept up is "busy", a milder finding, with benchseal's own CPU
// share (claims' client_cpu_mean, getrusage) and its workers' idle share
// (WorkerIdleShare) beside the host's figures.
const (
	SaturatedCPUPct = 90.0
	SaturatedGap    = time.Millisecond
)

// DispatchGapP99 is the 99th percentile (Percentile) of the dispatch gaps
// of recs' measured requests: for each worker, in start order, each
// request's start minus the end of the worker's previous measured
// request. ok is false when no worker sent two measured requests.
func DispatchGapP99(recs []schemas.Record) (gap time.Duration, ok bool) {
	byWorker := map[int][]schemas.Record{}
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure {
			byWorker[r.Worker] = append(byWorker[r.Worker], r)
		}
	}
	var gaps []float64
	for _, ws := range byWorker {
		slices.SortFunc(ws, func(a, b schemas.Record) int { return int(min(max(a.StartNs-b.StartNs, -1), 1)) })
		for j := 1; j < len(ws); j++ {
			gaps = append(gaps, float64(max(ws[j].StartNs-ws[j-1].EndNs, 0)))
		}
	}
	if len(gaps) == 0 {
		return 0, false
	}
	slices.Sort(gaps)
	return time.Duration(Percentile(gaps, 99)), true
}

// WorkerIdleShare is the share of a closed-loop step's worker time (C
// times its measured window) its workers spent between requests: the sum,
// over workers, of each measured request's start minus the end of the
// worker's previous measured request, over C × the window. Near 0 the
// client kept C requests in flight; ok is false when nothing was measured.
func WorkerIdleShare(recs []schemas.Record, conc int) (share float64, ok bool) {
	byWorker := map[int][]schemas.Record{}
	first, last := int64(-1), int64(0)
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		byWorker[r.Worker] = append(byWorker[r.Worker], r)
		if first < 0 || r.StartNs < first {
			first = r.StartNs
		}
		last = max(last, r.EndNs)
	}
	if first < 0 || conc < 1 || last <= first {
		return 0, false
	}
	var idle int64
	for _, ws := range byWorker {
		slices.SortFunc(ws, func(a, b schemas.Record) int { return cmpNs(a.StartNs, b.StartNs) })
		for j := 1; j < len(ws); j++ {
			idle += max(ws[j].StartNs-ws[j-1].EndNs, 0)
		}
	}
	return float64(idle) / float64(int64(conc)*(last-first)), true
}

// ClientStalled says whether a closed-loop step's worker gaps show its
// client stalled: the measured phase's workers idle for more than
// StalledIdleShare of their time (WorkerIdleShare) with either a
// dispatch-gap p99 above SaturatedGap or a gap the stall rule counts
// (Stalls; an idle worker alone is check 7's, not a gap). This, not the
// host's CPU or load, is what says the client set the pace: a host busy
// with other work whose benchseal kept C requests in flight sent the load
// it claims (issue 36). The share keeps a gap's length beside the
// request's: 2 ms once before each of four 1 s requests is a p99 above
// 1 ms, and the load was still 99.8 % of C.
func ClientStalled(recs []schemas.Record, conc int) bool {
	if sh, ok := WorkerIdleShare(recs, conc); !ok || sh <= StalledIdleShare {
		return false
	}
	if g, ok := DispatchGapP99(recs); ok && g > SaturatedGap {
		return true
	}
	for _, s := range Stalls(recs, conc) {
		if s.Phase == schemas.PhaseMeasure && !s.Idle {
			return true
		}
	}
	return false
}

// StalledIdleShare is the share of a step's worker time its workers may
// spend between requests before ClientStalled calls the client stalled:
// below it the load averaged more than 0.98·C, so the client's gaps move
// a throughput figure by less than 2 %, a fifth of compare's default
// tolerance. Issue 36 measured 0.3-1.2 % on a busy 2-core host whose
// workers kept up, and 2.6-48 % where the client really stalled.
const StalledIdleShare = 0.02

// CPUSaturated says a repeat's client host CPU mean reached
// SaturatedCPUPct; false when it was not sampled.
func CPUSaturated(m schemas.Metrics) bool {
	return m.HostCPUMean != nil && *m.HostCPUMean >= SaturatedCPUPct
}

// LoadAt is the 1-minute load average of the last host sample taken at or
// before tNs (the recorder samples at each step's start), false when none.
func LoadAt(host []schemas.HostSample, tNs int64) (float64, bool) {
	var load float64
	ok := false
	best := int64(-1)
	for _, h := range host {
		if h.TNs <= tNs && h.TNs > best {
			best, load, ok = h.TNs, h.Load1, true
		}
	}
	return load, ok
}
