package verify

import (
	"fmt"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// Check 7, the time between consecutive steps (issue 25): a step taken
// out of the middle of a run leaves its time behind. Between the last
// request of one step and the first of the next (or of the cache probe,
// which follows the sweep), internal/bench's runner does, in order:
//
//  1. close the step's records file and tally its records;
//  2. the AfterStep hooks: the recorder's sample and "after" /metrics
//     scrape with its settle (recorded, scrapes.after), the request
//     profiler's stop (one HTTP call, SGLang-Omni only), the
//     steps.jsonl line and the progress line;
//  3. compute the next step's variants (one SHA-256 over each variant's
//     body, in parallel; internal/bench's jobs) and create its records
//     file;
//  4. the BeforeStep hooks: the recorder's sample and "before" scrape
//     (recorded, scrapes.before);
//  5. start the C workers.
//
// Only 2's and 4's scrapes can take long (each up to its HTTP timeout, a
// settle up to its 2 s bound), and the recorder writes each one's start
// and duration (telemetry/steps.jsonl scrapes; for the probe,
// telemetry/cache-probes.jsonl). The rest is CPU work of milliseconds,
// the variants of the next step growing with its requests. So the gap
// may be at most
//
//	after scrape + before scrape + StepGapSlack + StepGapPerRequest × the next step's requests
//
// The slack is generous: on a shared 2-core host under a load average
// of 15, a worker stalled 64-118 ms now and then (maxStallShare), and a
// variant's SHA-256 over a 10 s clip at 16 kHz takes under 1 ms on one
// loaded core. A step removed from the middle of a run (issue 25's case:
// 5-7 s) leaves far more; one shorter than the slack leaves no gap this
// check can see (the counters between steps still show its requests).
// A larger gap WARNs (KindStepGap): a step removed, or the client host
// paused (suspended, swapping). Scrape times out of order with the
// records (a scrape "after" that starts before the step's last request
// ended, a "before" that ends after the next one's first started) cannot
// come from the recorder, whose clock is the records': FAIL. A run made
// before the recorder wrote scrape times is "not computed by the build
// that sealed it", never a FAIL.
const (
	StepGapSlack      = 2 * time.Second
	StepGapPerRequest = 2 * time.Millisecond
)

// KindStepGap: the time between two consecutive steps (or the sweep and
// the cache probe) is longer than the recorded scrapes and the slack
// explain.
const KindStepGap Kind = "step-gap"

// gapItem is one step or probe in the order the runner ran them: its
// records' first start and last end, and its scrapes before its first
// request and after its last.
type gapItem struct {
	name          string
	first, last   int64
	requests      int
	before, after *schemas.ScrapeTime
	timed         bool // its line records scrape times
}

// checkStepGaps bounds the time between consecutive steps, and between
// the sweep's end and each cache probe, by the recorded scrapes (see
// StepGapSlack). It returns the largest gap less its scrapes, for the
// summary, or -1 when nothing was bounded.
func checkStepGaps(c *Check, ev *evidence, no *notObserved) time.Duration {
	items := gapItems(ev)
	worst := time.Duration(-1)
	untimed := false
	for j := 1; j < len(items); j++ {
		prev, it := items[j-1], items[j]
		if !prev.timed || !it.timed {
			untimed = true
			continue
		}
		if gap, ok := checkGap(c, prev, it); ok {
			worst = max(worst, gap)
		}
	}
	switch {
	case !untimed || len(items) < 2:
	case len(ev.tel.Steps) == 0:
		no.add("time between steps (no telemetry/steps.jsonl)")
	default:
		no.add("time between steps (not computed by the build that sealed it: telemetry records no scrape times)")
	}
	return worst
}

// gapItems is the steps with records in the order the runner ran them
// (schedule), then each target's cache probe, with the scrapes the
// telemetry records around each.
func gapItems(ev *evidence) []gapItem {
	var items []gapItem
	line := map[stepKey]*schemas.StepTelemetry{}
	for i := range ev.tel.Steps {
		s := &ev.tel.Steps[i]
		line[stepKey{s.Target, s.Concurrency, s.Repeat}] = s
	}
	discarded := map[string]*schemas.StepTelemetry{}
	for i := range ev.tel.Discarded {
		s := &ev.tel.Discarded[i]
		discarded[schemas.AttemptRecordsPath(s.Target, s.Concurrency, s.Repeat, max(s.Attempt, 1))] = s
	}
	for _, k := range schedule(ev.run) {
		// A step measured again ran its discarded attempts first
		// (attempts.go), each with its scrapes.
		for _, at := range attemptFiles(ev, k) {
			if recs := ev.attemptRecs[at.file]; at.discarded && len(recs) > 0 {
				var scrapes map[string]schemas.ScrapeTime
				if l := discarded[at.file]; l != nil {
					scrapes = l.Scrapes
				}
				items = append(items, gapItemOf(at.file, recs, scrapes))
			}
		}
		recs := ev.records[k.file()]
		if len(recs) == 0 {
			continue
		}
		var scrapes map[string]schemas.ScrapeTime
		if l := line[k]; l != nil {
			scrapes = l.Scrapes
		}
		items = append(items, gapItemOf(k.file(), recs, scrapes))
	}
	probe := map[string]*schemas.ProbeTelemetry{}
	for i := range ev.tel.Probes {
		probe[ev.tel.Probes[i].Target] = &ev.tel.Probes[i]
	}
	for _, t := range ev.run.Targets {
		f := schemas.ProbeRecordsPath(t.Name, 1)
		recs := ev.records[f]
		if len(recs) == 0 {
			continue
		}
		var scrapes map[string]schemas.ScrapeTime
		if l := probe[t.Name]; l != nil {
			scrapes = l.Scrapes
		}
		items = append(items, gapItemOf(f, recs, scrapes))
	}
	return items
}

// gapItemOf is the gapItem of the records recs (at least one) of the
// step or probe name, whose telemetry line records scrapes (nil: no
// scrape times).
func gapItemOf(name string, recs []schemas.Record, scrapes map[string]schemas.ScrapeTime) gapItem {
	it := gapItem{name: name, requests: len(recs), first: recs[0].StartNs, last: recs[0].EndNs}
	for _, r := range recs {
		it.first, it.last = min(it.first, r.StartNs), max(it.last, r.EndNs)
	}
	if scrapes != nil {
		it.timed = true
		if s, ok := scrapes["before"]; ok {
			it.before = &s
		}
		if s, ok := scrapes["after"]; ok {
			it.after = &s
		}
	}
	return it
}

// checkGap bounds the gap between two timed items, prev then it, by the
// scrapes recorded between them: it returns the gap less those scrapes,
// and false when the gap was not bounded (the items are out of order, or
// the scrapes lie outside the gap).
func checkGap(c *Check, prev, it gapItem) (time.Duration, bool) {
	if it.first < prev.last {
		return 0, false // steps out of order: FAILed above
	}
	var scrapes int64
	ordered := true
	if s := prev.after; s != nil {
		scrapes += s.DurNs
		if s.StartNs < prev.last || s.End() > it.first {
			ordered = false
		}
	}
	if s := it.before; s != nil {
		scrapes += s.DurNs
		if s.StartNs < prev.last || s.End() > it.first {
			ordered = false
		}
	}
	if !ordered {
		c.failf("telemetry/steps.jsonl", nil, "the scrapes recorded between %s and %s (after %s, before %s) lie outside the %s between the one's last request and the other's first: the recorder takes them there, on the records' clock",
			prev.name, it.name, scrapeText(prev.after), scrapeText(it.before), ms(it.first-prev.last))
		return 0, false
	}
	gap := it.first - prev.last
	bound := scrapes + int64(StepGapSlack) + int64(it.requests)*int64(StepGapPerRequest)
	if gap > bound {
		c.warnKindf(KindStepGap, it.name, "%s passed between the last request of %s and the first of %s, while the scrapes recorded in between took %s and the rest of what the runner does between steps at most %s (%s + %s a request): a step taken out of the middle of the run, or the client paused (suspended, swapping)",
			ms(gap), prev.name, it.name, ms(scrapes), ms(bound-scrapes), StepGapSlack, StepGapPerRequest)
	}
	return time.Duration(gap - scrapes), true
}

func scrapeText(s *schemas.ScrapeTime) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("at %s, %s long", ms(s.StartNs), ms(s.DurNs))
}

// ms words a duration in ns as milliseconds.
func ms(ns int64) string { return fmt.Sprintf("%.1f ms", float64(ns)/1e6) }

// hasKind says c has a finding of kind k.
func hasKind(c *Check, k Kind) bool {
	for _, f := range c.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}
