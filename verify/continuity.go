package verify

// Check 7 across steps (issue 25): what one step's records and scrapes
// say about the next. Each step is checked on its own elsewhere; these
// hold the run together, so that a step taken out of the middle, a scrape
// deleted or ids moved between records contradict what is left.

import (
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// checkAcrossSteps runs check 7's cross-step parts.
func checkAcrossSteps(c *Check, ev *evidence) {
	checkRecordIDs(c, ev)
	checkMeasureScrapes(c, ev)
	checkBetweenSteps(c, ev)
}

// checkBetweenSteps holds each target's counters across the gap between
// two of its steps: from step k's scrape after to step k+1's scrape
// before, its request counter (engine.RequestCounters) and the counts of
// its stage histograms (engine.StageFamilies) grow by no more than the
// requests benchseal sent it in between, which are the records of every
// target served at the same URL that started in the gap (another
// target's steps, when two share a server), plus step k's requests the
// server had not yet counted when it was scraped after (the recorder's
// settle bound passed first). More is a WARN naming both counts: other
// traffic reached the server, or a step was taken out of the middle of
// the run (its requests are counted there, its records are gone).
// A counter that went down (a restart) is not held.
func checkBetweenSteps(c *Check, ev *evidence) {
	url := map[string]string{}
	for _, t := range ev.run.Targets {
		url[t.Name] = strings.TrimRight(t.URL, "/")
	}
	byTarget, all := stepsByTarget(ev)
	for _, t := range ev.run.Targets {
		steps := byTarget[t.Name]
		for i := 0; i+1 < len(steps); i++ {
			k, next := steps[i], steps[i+1]
			before, okb, errb := readScrape(ev, k.k.scrapeFile("before"))
			after, oka, erra := readScrape(ev, k.k.scrapeFile("after"))
			nextBefore, okn, errn := readScrape(ev, next.k.scrapeFile("before"))
			if !oka || !okn || erra != nil || errn != nil {
				continue
			}
			n, n200 := sentBetween(all, url, url[t.Name], k.last, next.first)
			stepN, stepN200 := len(k.recs), 0
			for _, r := range k.recs {
				if r.Status == 200 {
					stepN200++
				}
			}
			var ss []counterGrowth
			for _, rc := range engine.RequestCountersFor(task.NameOf(ev.run)) {
				status, allowed, inStep := "", n, stepN
				if rc.StatusLabel != "" {
					status, allowed, inStep = rc.OKStatus(), n200, stepN200
				}
				var x counterGrowth
				x.what, x.allowed, x.inStep = rc.Name, allowed, inStep
				x.a, x.okA = after.counterSum(rc.Name, rc.Match, rc.StatusLabel, status)
				x.nb, x.okNB = nextBefore.counterSum(rc.Name, rc.Match, rc.StatusLabel, status)
				if okb && errb == nil {
					x.b, x.okB = before.counterSum(rc.Name, rc.Match, rc.StatusLabel, status)
				}
				ss = append(ss, x)
			}
			for _, f := range engine.StageFamilies {
				var x counterGrowth
				x.what, x.allowed, x.inStep = f.Family, n, stepN
				ha, okA := after.histogram(f.Family, f.Match)
				hn, okNB := nextBefore.histogram(f.Family, f.Match)
				x.a, x.nb, x.okA, x.okNB = ha.count, hn.count, okA, okNB
				if okb && errb == nil {
					hb, okB := before.histogram(f.Family, f.Match)
					x.b, x.okB = hb.count, okB
				}
				ss = append(ss, x)
			}
			warnGrowth(c, k.k, next.k, ss)
		}
	}
}

// stepRecords is one step's records and when they ran: their first start
// and last end.
type stepRecords struct {
	k           stepKey
	first, last int64
	recs        []schemas.Record
}

// stepsByTarget is the steps with records in the order the runner ran
// them (schedule), by target and all together.
func stepsByTarget(ev *evidence) (map[string][]stepRecords, []stepRecords) {
	byTarget := map[string][]stepRecords{}
	var all []stepRecords
	for _, k := range schedule(ev.run) {
		recs := ev.records[k.file()]
		if len(recs) == 0 {
			continue
		}
		sp := stepRecords{k: k, first: recs[0].StartNs, last: recs[0].EndNs, recs: recs}
		for _, r := range recs {
			sp.first, sp.last = min(sp.first, r.StartNs), max(sp.last, r.EndNs)
		}
		byTarget[k.target] = append(byTarget[k.target], sp)
		all = append(all, sp)
	}
	// A discarded attempt's requests (attempts.go) were sent between
	// its step's neighbours too.
	for _, f := range ev.attemptFiles {
		k, _, ok := parseAttemptPath(f)
		recs := ev.attemptRecs[f]
		if !ok || len(recs) == 0 {
			continue
		}
		sp := stepRecords{k: k, first: recs[0].StartNs, last: recs[0].EndNs, recs: recs}
		for _, r := range recs {
			sp.first, sp.last = min(sp.first, r.StartNs), max(sp.last, r.EndNs)
		}
		all = append(all, sp)
	}
	return byTarget, all
}

// sentBetween counts the records of all (all, and HTTP 200 only) sent to
// u that started in (from, to); url is each target's URL.
func sentBetween(all []stepRecords, url map[string]string, u string, from, to int64) (n, n200 int) {
	for _, sp := range all {
		if url[sp.k.target] != u || sp.last <= from || sp.first >= to {
			continue
		}
		for _, r := range sp.recs {
			if r.StartNs > from && r.StartNs < to {
				n++
				if r.Status == 200 {
					n200++
				}
			}
		}
	}
	return n, n200
}

// counterGrowth is one server counter across the gap between two steps:
// its value at the step's scrape before (b), after (a) and the next
// step's before (nb), each with whether it was found; the requests sent
// in the gap (allowed) and in the step (inStep).
type counterGrowth struct {
	what            string
	b, a, nb        float64
	okB, okA, okNB  bool
	allowed, inStep int
}

// warnGrowth warns, once, for the first counter of ss that grew between
// step k's scrape after and next's scrape before by more than the
// requests sent in between plus k's requests not yet counted after it.
func warnGrowth(c *Check, k, next stepKey, ss []counterGrowth) {
	for _, x := range ss {
		if !x.okA || !x.okNB || x.nb < x.a {
			continue
		}
		late := 0.0
		if x.okB && x.a >= x.b {
			late = max(0, float64(x.inStep)-(x.a-x.b))
		}
		if g := x.nb - x.a; g > float64(x.allowed)+late {
			c.warnKindf(KindScrape, next.scrapeFile("before"),
				"%s: %s grew by %g between the scrape after %s and the one before this step, yet benchseal sent the server %d requests in between (%g of %s's not yet counted): other traffic reached the server, or steps were taken out of the run",
				next, x.what, g, k, x.allowed, late, k)
			return
		}
	}
}

// checkMeasureScrapes: the scrape after a step's warm-ups
// (c<C>-r<R>-measure.prom, from which claims' server block and cache hits
// count the measured requests) is taken at every step that measured
// (internal/bench calls BeforeMeasure unless the warm-ups stopped the
// step; the recorder writes whatever answered). So one missing while the
// target's other steps have theirs, and no scrape error recorded, was
// removed after the run: FAIL, as a missing before or after scrape. Without
// it the server's deltas run from the scrape before the warm-ups, which
// hides the warm-ups among the measured requests. A run that took no
// measure scrape at all (made before they were) is not held.
func checkMeasureScrapes(c *Check, ev *evidence) {
	has := map[string]bool{} // target -> some step has its measure scrape
	for _, t := range ev.run.Targets {
		for _, n := range ev.f.glob(schemas.ServerPath(t.Name, "metrics/*.prom")) {
			if strings.HasSuffix(n, "-"+claims.ScrapeMeasure+".prom") {
				has[t.Name] = true
				break
			}
		}
	}
	for _, k := range schedule(ev.run) {
		line := stepLine(ev, k)
		taken := scrapeTaken(line, claims.ScrapeMeasure) // steps.jsonl: taken, whatever else is left
		if !has[k.target] && !taken {
			continue
		}
		file := k.scrapeFile(claims.ScrapeMeasure)
		if ev.f.has(file) {
			continue
		}
		measured := false
		for _, r := range ev.records[k.file()] {
			if r.Phase == schemas.PhaseMeasure {
				measured = true
				break
			}
		}
		if !measured {
			continue
		}
		switch {
		case line == nil && !ev.run.Complete:
			// the run stopped during the step
		case line != nil && line.ScrapeErrors[claims.ScrapeMeasure] != "":
			c.warnKindf(KindScrape, file, "%s: no /metrics scrape after the warm-ups: the runner recorded that it failed (%s); the server's count of the measured requests includes the warm-ups",
				k, line.ScrapeErrors[claims.ScrapeMeasure])
		default:
			why := fmt.Sprintf("the run scraped %s's /metrics after the warm-ups of its other steps", k.target)
			if !has[k.target] {
				why = "its telemetry/steps.jsonl line records when it was taken"
			}
			c.add(Finding{Status: Fail, Kind: KindScrape, Path: file, Reason: fmt.Sprintf(
				"%s: there is no %s, although %s and telemetry/steps.jsonl records no failed scrape: the scrape was removed after the run",
				k, file, why)})
		}
	}
}

// scrapeTaken reports whether a step's steps.jsonl line (nil: none)
// records the time of its scrape when ("before", "measure", "after").
func scrapeTaken(line *schemas.StepTelemetry, when string) bool {
	if line == nil {
		return false
	}
	_, ok := line.Scrapes[when]
	return ok
}

// stepLine is the step's telemetry/steps.jsonl line, nil when none.
func stepLine(ev *evidence, k stepKey) *schemas.StepTelemetry {
	for i := range ev.tel.Steps {
		if s := &ev.tel.Steps[i]; s.Target == k.target && s.Concurrency == k.concurrency && s.Repeat == k.repeat {
			return s
		}
	}
	return nil
}

// checkProbeSchedule (check 5) numbers the cache probe's variants as the
// runner does (internal/bench, probe.go): after the sweep, target by
// target in run.json's order, the variant half of each probe sends the
// first clip's next variants, numbered on from every variant the sweep
// sent (used, by clip SHA-256, as checkSchedule left it). A probe whose
// variants are not those numbers was renumbered, or follows a sweep that
// was cut.
func checkProbeSchedule(c *Check, ev *evidence, status Status, base, used map[string]int64, sha map[string]string) {
	run := ev.run
	pairs := run.Protocol.CacheProbe
	if pairs == 0 || len(run.Corpus) == 0 {
		return
	}
	cl := run.Corpus[0].ID
	for _, t := range run.Targets {
		f := schemas.ProbeRecordsPath(t.Name, 1)
		recs, ok := ev.records[f]
		if !ok {
			continue // check 7 says whether it should be there
		}
		want := make([]int64, claims.ProbeWarmup+2*pairs)
		for seq := range want {
			want[seq] = -1
			if !claims.ProbeIsRepeat(seq, pairs) {
				want[seq] = base[cl] + used[sha[cl]]
				used[sha[cl]]++
			}
		}
		for i, r := range recs {
			if r.Seq < 0 || r.Seq >= len(want) || want[r.Seq] < 0 || r.SampleIndex < 0 {
				continue // check 7 holds seqs and repeats to the probe's schedule
			}
			if r.Clip != cl || r.Variant != want[r.Seq] {
				c.add(Finding{Status: status, Path: f, Line: i + 1, Reason: fmt.Sprintf(
					"probe seq %d sent clip %s variant %d, but the probe's schedule sends clip %s variant %d there (numbered on from every variant the sweep sent): the probe or the sweep before it was renumbered",
					r.Seq, r.Clip, r.Variant, cl, want[r.Seq])})
			}
		}
	}
}
