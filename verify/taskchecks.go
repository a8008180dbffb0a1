package verify

import (
	"math"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// checkTaskRecords is part of check 5: the run's task's own record
// checks (task.Checker: tts's same-audio rule), over every record in
// bundle order, each problem a FAIL at its file and line.
func checkTaskRecords(c *Check, ev *evidence, tk task.Task) {
	chk := task.ChecksOf(tk)
	if chk == nil {
		return
	}
	var recs []task.RecordAt
	for _, f := range ev.recFiles {
		for i := range ev.records[f] {
			recs = append(recs, task.RecordAt{File: f, Line: i + 1, Record: &ev.records[f][i]})
		}
	}
	for _, p := range chk.CheckRecords(*ev.run, recs) {
		c.add(Finding{Status: Fail, Path: p.File, Line: p.Line, Reason: p.Reason})
	}
}

// checkServerAudio is part of check 9 for a task that the server counts
// (task.ServerCounter; tts: the seconds of audio the records say each
// step's answers held, against the server's own account of what it
// produced). The server counts frames over its sample
// rate, the client decodes the same frames at the same rate, so where the
// server counted exactly the step's decodable answers, the two sums agree
// within a millisecond a request and 0.1 % (FAIL: the records' audio
// seconds were edited; RTFx and seconds per character rest on them). A
// target that does not expose the family, or a count that differs (other
// traffic, a stream cut before its end), is not held.
func checkServerAudio(c *Check, ev *evidence, k stepKey, recs []schemas.Record, no *notObserved) {
	tk, err := task.ForRun(ev.run)
	if err != nil {
		return
	}
	sc, ok := tk.(task.ServerCounter)
	if !ok {
		return
	}
	family := sc.ServerFamily()
	from := k.scrapeFile(claims.ScrapeMeasure)
	measured := func(r schemas.Record) bool { return r.Phase == schemas.PhaseMeasure }
	if !ev.f.has(from) {
		from, measured = k.scrapeFile("before"), func(schemas.Record) bool { return true }
	}
	before, okb, errb := readScrape(ev, from)
	after, oka, erra := readScrape(ev, k.scrapeFile(claims.ScrapeAfter))
	if !okb || !oka || errb != nil || erra != nil {
		return
	}
	hb, ok1 := before.histogram(family, nil)
	ha, ok2 := after.histogram(family, nil)
	if !ok1 || !ok2 {
		return
	}
	n, sum := 0, 0.0
	for i := range recs {
		if !measured(recs[i]) {
			continue
		}
		if x, ok := sc.Counted(&recs[i]); ok {
			n++
			sum += x
		}
	}
	served, count := ha.sum-hb.sum, ha.count-hb.count
	if count != float64(n) {
		no.add("%s: the server's %s counted %g answers, the records hold %d decodable ones: their seconds are not held to it", k, family, count, n)
		return
	}
	if slack := 0.001*float64(n) + 0.001*served; math.Abs(sum-served) > slack {
		c.failf(k.scrapeFile(claims.ScrapeAfter), nil, "%s: the records say the %d answers held %.3f s of audio, the server's own %s says it produced %.3f s (%+.1f %%): the records' audio seconds were edited",
			k, n, sum, family, served, 100*(sum-served)/max(served, 1e-9))
	}
}

// checkServerSessions is part of check 9 for a task whose requests are
// connections the server counts (task.ConnectionCounter; realtime: vLLM's
// vllm:websocket_connections_total, incremented at every accepted
// WebSocket): over a step (its before and after scrapes, warm-ups
// included), the counter grew by at least the sessions the records say
// the server opened (FAIL: sessions the server never accepted were
// written); more is other traffic. A target without the family (SGLang-
// Omni counts no WebSocket) is not observed: its steps are counted in
// uncounted, by target, and the family's name is returned.
func checkServerSessions(c *Check, ev *evidence, k stepKey, recs []schemas.Record, uncounted map[string]int) string {
	tk, err := task.ForRun(ev.run)
	if err != nil {
		return ""
	}
	cc, ok := tk.(task.ConnectionCounter)
	if !ok {
		return ""
	}
	family := cc.ConnectionFamily()
	before, okb, errb := readScrape(ev, k.scrapeFile("before"))
	after, oka, erra := readScrape(ev, k.scrapeFile(claims.ScrapeAfter))
	if !okb || !oka || errb != nil || erra != nil {
		return family
	}
	b, ok1 := before.counterSum(family, nil, "", "")
	a, ok2 := after.counterSum(family, nil, "", "")
	if !ok1 || !ok2 {
		uncounted[k.target]++
		return family
	}
	opened := 0
	for i := range recs {
		if cc.Opened(&recs[i]) {
			opened++
		}
	}
	if grew := a - b; grew < float64(opened) {
		c.failf(k.scrapeFile(claims.ScrapeAfter), nil, "%s: the records hold %d sessions the server opened, yet its %s grew by %g over the step: sessions it never accepted were written",
			k, opened, family, grew)
	}
	return family
}
