package verify

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// The server as a second witness (check 9): the stage histograms the
// server kept over a step's measured phase (claims.ServerOf, the same
// deltas claims' server block holds) against the step's records. The
// server counts the requests it saw and times them from its side, so
//
//   - each stage's count is at least the measured requests that
//     succeeded (a success the server never saw is a fabricated record:
//     FAIL) and at most the measured requests (more is other traffic:
//     WARN);
//   - no stage takes the server longer, in sum, than the client waited
//     for those requests: every stage lies inside the request's
//     end-to-end time, which lies inside the client's latency (FAIL when
//     the records' latencies are shorter than the server's own times:
//     edited to look faster). The sums are exact (no bucket enters); the
//     slack is latencySlack per request, the two clocks' reading edges.
//
// Without a measure scrape the deltas span the whole step, warm-ups
// included, and so do the records they are held to.

// checkServer is check 9.
func checkServer(rep *Report, ev *evidence) {
	c := rep.Check(CheckServer)
	var no notObserved
	steps, witnessed, unexposed, unscraped := 0, 0, 0, 0
	stages := map[string]bool{}
	uncounted, sessionFamily := map[string]int{}, ""
	for _, k := range schedule(ev.run) {
		recs, ok := ev.records[k.file()]
		if !ok || !slices.ContainsFunc(recs, func(r schemas.Record) bool { return r.Phase == schemas.PhaseMeasure }) {
			continue
		}
		steps++
		checkServerAudio(c, ev, k, recs, &no)
		if f := checkServerSessions(c, ev, k, recs, uncounted); f != "" {
			sessionFamily = f
		}
		s := claims.ServerOf(ev.tel, task.NameOf(ev.run), k.target, k.concurrency, k.repeat)
		if s == nil {
			if ev.f.has(k.scrapeFile(claims.ScrapeAfter)) {
				unexposed++
			} else {
				unscraped++
			}
			continue
		}
		witnessed++
		if s.Note != "" {
			no.add("%s: %s", k, s.Note)
		}
		phase := func(r schemas.Record) bool { return r.Phase == schemas.PhaseMeasure }
		scope := "measured phase"
		if s.Scope != schemas.ServerScopeMeasured {
			phase = func(schemas.Record) bool { return true }
			scope = "step, warm-ups included (no scrape after the warm-ups)"
		}
		var n, ok200 int
		var clientSum float64
		for _, r := range recs {
			if !phase(r) {
				continue
			}
			n++
			if r.OK {
				ok200++
			}
			clientSum += float64(r.EndNs-r.StartNs) / 1e9
		}
		where := k.scrapeFile(claims.ScrapeAfter)
		for _, st := range s.Stages {
			stages[st.Stage] = true
			switch {
			case st.Count < float64(ok200):
				c.failf(where, nil, "%s: the server's %s counted %g requests over the %s, yet the records show %d that succeeded: records of requests the server never saw%s",
					k, st.Family, st.Count, scope, ok200, settleNote(ev, k))
				continue
			}
			// An engine that splits long audio counts each chunk: the
			// records bound its count and its time only as many.
			b := boundOf(ev, engineOfFamily(st.Family), k, recs, phase)
			upper, client := float64(max(b.hi, n)), max(b.latencyS, clientSum)
			if st.Count > upper {
				bound := ""
				if b.split {
					bound = fmt.Sprintf(" (at most %d engine requests: %s)", b.hi, b.limit)
				}
				c.warnf(where, "%s: the server's %s counted %g requests over the %s, the records %d%s: other traffic reached the server, so its times are not held to the records",
					k, st.Family, st.Count, scope, n, bound)
				continue
			}
			if st.MeanS == nil {
				continue
			}
			serverSum := *st.MeanS * st.Count
			if serverSum > client+latencySlack*st.Count {
				c.failf(where, nil, "%s: the server's %s adds up to %.6f s over %g requests (mean %.6f s), longer than the %.6f s the records say the client waited for all %d requests of the %s: the records' latencies are shorter than the server's own",
					k, st.Family, serverSum, st.Count, *st.MeanS, client, n, scope)
			}
		}
	}
	for _, t := range slices.Sorted(maps.Keys(uncounted)) {
		no.add("%s (%d steps): the server's /metrics has no %s: its sessions are not held to its connection count", t, uncounted[t], sessionFamily)
	}
	if unscraped > 0 {
		no.add("%d of %d steps have no /metrics scrapes bracketing them", unscraped, steps)
	}
	if unexposed > 0 {
		no.add("%d of %d steps: the server's /metrics exposes none of %s; %s", unexposed, steps, stageFamilyList(), howToExposeStages())
	}
	if witnessed == 0 {
		if steps == 0 {
			c.Status, c.Summary = Skip, "not observed: no step with measured records"
			return
		}
		c.Status, c.Summary = Skip, "not observed: "+strings.Join(no, "; ")
		return
	}
	var names []string
	for _, st := range []string{schemas.StageQueue, schemas.StagePrefill, schemas.StageDecode, schemas.StageInference,
		schemas.StageTTFT, schemas.StageE2E, schemas.StageHTTP} {
		if stages[st] {
			names = append(names, st)
		}
	}
	if c.Status == Fail {
		c.Summary = fmt.Sprintf("the server's own histograms contradict the records of %d step(s)", countFailedSteps(c))
	} else {
		c.Summary = fmt.Sprintf("%d of %d steps: the server counted every successful measured request and its times (%s) fit inside the client's latencies",
			witnessed, steps, strings.Join(names, ", "))
	}
	c.Summary = no.summary(c, c.Summary)
}

// countFailedSteps counts the steps the failing findings name (their
// reason starts with the step).
func countFailedSteps(c *Check) int {
	seen := map[string]bool{}
	for _, f := range c.Findings {
		if f.Status == Fail {
			step, _, _ := strings.Cut(f.Reason, ":")
			seen[step] = true
		}
	}
	return len(seen)
}

// stageFamilyList names the stage families verify looks for.
func stageFamilyList() string {
	var out []string
	for _, f := range engine.StageFamilies {
		out = append(out, f.Family)
	}
	return strings.Join(out, ", ")
}

// howToExposeStages says how a server gets its stage histograms onto
// /metrics, from the engine table: the engines whose /metrics is off by
// default.
func howToExposeStages() string {
	var off []string
	for _, e := range engine.All() {
		if e.Metrics.DefaultOff && len(e.Metrics.Stages) > 0 {
			off = append(off, e.Name)
		}
	}
	s := "to get them, keep the server's /metrics reachable during the run"
	if len(off) > 0 {
		s += " (" + strings.Join(off, ", ") + ": start it with metrics enabled)"
	}
	return s
}
