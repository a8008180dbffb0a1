package verify

// Check 7 across steps (issue 25): what one step's records and scrapes
// say about the next. Each step is checked on its own elsewhere; these
// hold the run together, so that a step taken out of the middle, a scrape
// deleted or ids moved between records contradict what is left.

import (
	"fmt"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
)

// checkAcrossSteps runs check 7's cross-step parts.
func checkAcrossSteps(c *Check, ev *evidence) {
	checkRecordIDs(c, ev)
	checkMeasureScrapes(c, ev)
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
		if !has[k.target] {
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
		line := stepLine(ev, k)
		switch {
		case line == nil && !ev.run.Complete:
			// the run stopped during the step
		case line != nil && line.ScrapeErrors[claims.ScrapeMeasure] != "":
			c.warnKindf(KindScrape, file, "%s: no /metrics scrape after the warm-ups: the runner recorded that it failed (%s); the server's count of the measured requests includes the warm-ups",
				k, line.ScrapeErrors[claims.ScrapeMeasure])
		default:
			c.add(Finding{Status: Fail, Kind: KindScrape, Path: file, Reason: fmt.Sprintf(
				"%s: there is no %s, although the run scraped %s's /metrics after the warm-ups of its other steps and telemetry/steps.jsonl records no failed scrape: the scrape was removed after the run",
				k, file, k.target)})
		}
	}
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
