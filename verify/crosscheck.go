package verify

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Cross-checks: every fact a run directory holds twice, in two files
// benchseal wrote at different moments, must agree. A key holder who edits
// one file and re-seals leaves the other contradicting it. Where a server
// could explain a difference (other traffic), it is a WARN; where the
// evidence is absent, it is "not observed" and said in the summary.

// stepKey names one target at one level and repeat.
type stepKey struct {
	target      string
	concurrency int
	repeat      int
}

func (k stepKey) String() string {
	return fmt.Sprintf("%s c=%d repeat %d", k.target, k.concurrency, k.repeat)
}

func (k stepKey) file() string { return stepFile(k.target, k.concurrency, k.repeat) }

// scrapeFile is the raw /metrics scrape of a step, when "before" or "after".
func (k stepKey) scrapeFile(when string) string {
	return schemas.MetricsPath(k.target, k.concurrency, k.repeat, when)
}

// schedule lists the steps of the protocol in the order the runner runs
// them: level, repeat, target (reversed on even repeats with "alternate").
func schedule(run *schemas.Run) []stepKey {
	var out []stepKey
	p := run.Protocol
	for _, conc := range p.Levels {
		for r := 1; r <= p.Repeats; r++ {
			order := slices.Clone(run.Targets)
			if p.TargetOrder == "alternate" && r%2 == 0 {
				slices.Reverse(order)
			}
			for _, t := range order {
				out = append(out, stepKey{t.Name, conc, r})
			}
		}
	}
	return out
}

// measuredWindow is the first start and last end of a step's measured
// records; ok is false when it has none.
func measuredWindow(recs []schemas.Record) (from, to int64, ok bool) {
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		if !ok || r.StartNs < from {
			from = r.StartNs
		}
		if !ok || r.EndNs > to {
			to = r.EndNs
		}
		ok = true
	}
	return from, to, ok
}

// notObserved collects what a check could not compare, for its summary.
type notObserved []string

func (n *notObserved) add(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }

// summary joins what a check held with what it did not observe, each
// with its state: "held: ...; not observed: ..." when anything was not
// observed (a PASS or WARN never reads as if all of it held), the summary
// alone otherwise; a failing check's summary is not called held.
func (n notObserved) summary(c *Check, s string) string {
	if len(n) == 0 {
		return s
	}
	if c.Status != Fail {
		s = "held: " + s
	}
	return s + n.String()
}

func (n notObserved) String() string {
	if len(n) == 0 {
		return ""
	}
	return "; not observed: " + strings.Join(n, "; ")
}

// checkStepWindows (check 7) holds telemetry/steps.jsonl, written by the
// recorder after each step, to the records: each line's window is its
// step's measured window (first start, last end), one line per step.
func checkStepWindows(c *Check, ev *evidence, no *notObserved) {
	const name = "telemetry/steps.jsonl"
	if !ev.f.has(name) {
		no.add("step windows (no %s)", name)
		return
	}
	seen := map[stepKey]int{}
	for i, s := range ev.tel.Steps {
		line := i + 1
		k := stepKey{s.Target, s.Concurrency, s.Repeat}
		if prev, dup := seen[k]; dup {
			c.add(Finding{Status: Fail, Path: name, Line: line, Reason: fmt.Sprintf("%s has a second line (the first is line %d)", k, prev)})
			continue
		}
		seen[k] = line
		recs, ok := ev.records[k.file()]
		if !ok {
			c.add(Finding{Status: Fail, Path: name, Line: line, Reason: fmt.Sprintf("%s: a step with no records file", k)})
			continue
		}
		from, to, measured := measuredWindow(recs)
		if !measured {
			continue // interrupted in its warm-ups: no window to compare
		}
		if s.StartNs != from || s.EndNs != to {
			c.add(Finding{Status: Fail, Path: name, Line: line, Reason: fmt.Sprintf("%s: window [%d, %d] ns, but its records were measured over [%d, %d] ns",
				k, s.StartNs, s.EndNs, from, to)})
		}
	}
	for _, k := range schedule(ev.run) {
		if _, ok := ev.records[k.file()]; ok && seen[k] == 0 && ev.run.Complete {
			c.failf(name, nil, "%s has records but no line: the recorder writes one after every step", k)
		}
	}
}

// MinSuccessShare is the share of a step's measured requests that must
// succeed before verify stops warning: below it, the claims (which count
// successes only) compare little, and with none succeeded nothing.
const MinSuccessShare = 0.99

// checkSuccesses (check 7) warns about steps where requests failed.
func checkSuccesses(c *Check, ev *evidence) {
	for _, k := range schedule(ev.run) {
		recs, ok := ev.records[k.file()]
		if !ok {
			continue
		}
		n, good := 0, 0
		for _, r := range recs {
			if r.Phase == schemas.PhaseMeasure {
				n++
				if r.OK {
					good++
				}
			}
		}
		switch {
		case n == 0:
		case good == 0:
			c.warnf(k.file(), "none of the %d measured requests succeeded: the step has no figures (claims count successes only)", n)
		case float64(good) < 0.5*float64(n):
			c.warnKindf(KindSurvivors, k.file(), "only %d of %d measured requests succeeded, fewer than half: the figures describe the survivors, not the load (claims count successes only)", good, n)
		case float64(good) < MinSuccessShare*float64(n):
			c.warnf(k.file(), "%d of %d measured requests failed (%.1f %%): claims count successes only", n-good, n, 100*float64(n-good)/float64(n))
		}
	}
}

// scrape is one parsed .prom file.
type scrape map[string]*dto.MetricFamily

// readScrape parses a raw /metrics scrape with Prometheus's own parser;
// ok is false when the file is absent, err when it does not parse.
func readScrape(ev *evidence, name string) (s scrape, ok bool, err error) {
	if !ev.f.has(name) {
		return nil, false, nil
	}
	b, err := ev.f.read(name)
	if err != nil {
		return nil, true, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return nil, true, err
	}
	return scrape(fams), true, nil
}

// family finds a family by its exposed name, with or without _total
// (the parser may keep either).
func (s scrape) family(name string) *dto.MetricFamily {
	if f, ok := s[name]; ok {
		return f
	}
	return s[strings.TrimSuffix(name, "_total")]
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return 0
}

// counterSum sums a counter's samples that match (and, when status is not
// "", carry that value of statusLabel).
func (s scrape) counterSum(name string, match map[string]string, statusLabel, status string) (float64, bool) {
	f := s.family(name)
	if f == nil {
		return 0, false
	}
	var sum float64
	for _, m := range f.GetMetric() {
		if !fingerprint.LabelsMatch(m, match) || (status != "" && label(m, statusLabel) != status) {
			continue
		}
		sum += value(m)
	}
	return sum, true
}

// histogram sums a histogram's matching samples: count, sum and the
// cumulative count of each upper bound.
type histogram struct {
	count, sum float64
	buckets    map[float64]float64
}

func (s scrape) histogram(name string, match map[string]string) (histogram, bool) {
	h := histogram{buckets: map[float64]float64{}}
	f := s[name]
	if f == nil {
		return h, false
	}
	for _, m := range f.GetMetric() {
		if !fingerprint.LabelsMatch(m, match) || m.Histogram == nil {
			continue
		}
		hm := m.GetHistogram()
		h.count += float64(hm.GetSampleCount())
		h.sum += hm.GetSampleSum()
		for _, b := range hm.GetBucket() {
			h.buckets[b.GetUpperBound()] += float64(b.GetCumulativeCount())
		}
	}
	return h, true
}

// latencySlack is how much longer than the client a server may seem to
// take over a step, per request, before check 7 fails it: the two clocks
// read the same interval from different ends, never more than this apart.
const latencySlack = 0.002 // seconds

// checkServerCounters (check 7) holds each step's records to the server's
// own count of the requests it served in that step: the growth of its
// request counter between the scrapes before and after the step
// (engine.RequestCountersFor the run's task), and its e2e latency histogram against the
// client's latencies.
func checkServerCounters(c *Check, ev *evidence, no *notObserved) {
	missing, steps := 0, 0
	for _, k := range schedule(ev.run) {
		recs, ok := ev.records[k.file()]
		if !ok || len(recs) == 0 {
			continue
		}
		steps++
		before, okb, errb := readScrape(ev, k.scrapeFile("before"))
		after, oka, erra := readScrape(ev, k.scrapeFile("after"))
		if errb != nil || erra != nil {
			c.warnf(k.scrapeFile("before"), "%s: /metrics scrapes cannot be parsed (%v): the server's request count is not observed", k, firstErr(errb, erra))
			missing++
			continue
		}
		if !okb || !oka {
			missing++
			checkMissingScrape(c, ev, k, okb, oka)
			continue
		}
		var rc *engine.RequestCounter
		counters := engine.RequestCountersFor(task.NameOf(ev.run)) // a task an engine serves no counter for has none (SGLang-Omni's tts)
		for i := range counters {
			r := &counters[i]
			if before.family(r.Name) != nil && after.family(r.Name) != nil {
				rc = r
				break
			}
		}
		if rc == nil {
			missing++
			continue
		}
		n200, nOK, all := 0, 0, len(recs)
		var client200 []float64
		for _, r := range recs {
			if r.Status == 200 {
				n200++
				client200 = append(client200, float64(r.EndNs-r.StartNs)/1e9)
			}
			if r.OK {
				nOK++
			}
		}
		status := ""
		if rc.StatusLabel != "" {
			status = rc.OKStatus()
		}
		b, _ := before.counterSum(rc.Name, rc.Match, rc.StatusLabel, status)
		a, _ := after.counterSum(rc.Name, rc.Match, rc.StatusLabel, status)
		d := a - b
		where := k.scrapeFile("after")
		if rc.StatusShed != "" {
			checkServerSheds(c, k, before, after, rc, recs, where)
		}
		switch {
		case d < 0:
			c.warnf(where, "%s: %s went down from %g to %g: the server restarted during the step, its count is not observed", k, rc.Name, b, a)
			continue
		case d < float64(nOK):
			// The successes bound the count from below: a stream that
			// began with HTTP 200 and failed midway may or may not be
			// counted (the server may call it failed, or aborted).
			c.failf(where, nil, "%s: the server counted %g requests (%s grew from %g to %g), yet the records show %d that succeeded: records of requests the server never served%s",
				k, d, rc.Name, b, a, nOK, settleNote(ev, k))
			continue
		case rc.StatusLabel != "" && d > float64(n200):
			c.warnf(where, "%s: the server counted %g requests (%s), the records %d: other traffic reached the server during the step, or records are missing",
				k, d, rc.Name, all)
			continue
		case rc.StatusLabel == "":
			// A counter of engine requests: a record may be several.
			eng, _ := engine.ByName(rc.Engine)
			if b := boundOf(ev, eng, k, recs, nil); d > float64(max(b.hi, all)) {
				bound := ""
				if b.split {
					bound = fmt.Sprintf(" (at most %d engine requests: %s)", b.hi, b.limit)
				}
				c.warnf(where, "%s: the server counted %g requests (%s), the records %d%s: other traffic reached the server during the step, or records are missing",
					k, d, rc.Name, all, bound)
				continue
			}
		}
		if rc.Histogram == "" {
			continue
		}
		hb, okb := before.histogram(rc.Histogram, rc.Match)
		ha, oka := after.histogram(rc.Histogram, rc.Match)
		if !okb || !oka || ha.count-hb.count != float64(n200) {
			// Not the same set of requests (the histogram observes other
			// answers too, or other traffic): nothing to hold them to.
			continue
		}
		var clientSum float64
		for _, l := range client200 {
			clientSum += l
		}
		serverSum := ha.sum - hb.sum
		if serverSum > clientSum+latencySlack*float64(n200) {
			c.failf(where, nil, "%s: the server's %s grew by %.6f s over %d requests, longer than the %.6f s the records say the client waited for them: the records' latencies are shorter than the server's own",
				k, rc.Histogram, serverSum, n200, clientSum)
			continue
		}
		// Each request took the server no longer than the client, so at
		// every bucket bound the server counts at least as many requests
		// as the records do (within the slack).
		for le, cum := range ha.buckets {
			if math.IsInf(le, 1) {
				continue
			}
			server := cum - hb.buckets[le]
			clientN := 0
			for _, l := range client200 {
				if l+latencySlack <= le {
					clientN++
				}
			}
			if float64(clientN) > server {
				c.failf(where, nil, "%s: %d records took at most %g s, but the server's %s counts only %g requests that fast: the records' latencies are shorter than the server's own",
					k, clientN, le, rc.Histogram, server)
				break
			}
		}
	}
	if missing > 0 {
		no.add("the server's request counts for %d of %d steps (no request counter in both /metrics scrapes)", missing, steps)
	}
}

// checkMissingScrape judges a step's missing /metrics scrape. The
// recorder writes the raw answer of every scrape (internal/fingerprint's
// Recorder, StepStart and StepEnd), whatever its status, and records in
// the step's steps.jsonl line (scrape_errors) a scrape that failed. So a
// scrape missing while the run scraped the target's other steps is
// evidence removed (FAIL), unless the runner recorded its failure (WARN),
// or the run stopped during that step (no steps.jsonl line in an
// incomplete run). A target with no scrape at all is "not observed".
//
// A scrape the step's steps.jsonl line records as taken (its start and
// duration under scrapes) is required too, whether or not any other
// scrape of the target is left: deleting every scrape of a target does
// not make its counts "not observed" while the telemetry says they were
// taken.
func checkMissingScrape(c *Check, ev *evidence, k stepKey, okb, oka bool) {
	line := stepLine(ev, k)
	scraped := len(ev.f.glob(schemas.ServerPath(k.target, "metrics/*.prom"))) > 0
	if !scraped && (line == nil || len(line.Scrapes) == 0) {
		return
	}
	if line == nil && !ev.run.Complete {
		return
	}
	for _, side := range []struct {
		when string
		ok   bool
	}{{"before", okb}, {"after", oka}} {
		if side.ok {
			continue
		}
		if !scraped && !scrapeTaken(line, side.when) {
			continue
		}
		file := k.scrapeFile(side.when)
		if line != nil && line.ScrapeErrors[side.when] != "" {
			c.warnKindf(KindScrape, file, "%s: no /metrics scrape %s the step: the runner recorded that it failed (%s); the server's request count is not observed",
				k, side.when, line.ScrapeErrors[side.when])
			continue
		}
		why := fmt.Sprintf("the run scraped %s's /metrics at its other steps", k.target)
		if !scraped {
			why = "its telemetry/steps.jsonl line records when it was taken"
		}
		c.add(Finding{Status: Fail, Kind: KindScrape, Path: file, Reason: fmt.Sprintf(
			"%s: there is no %s, although %s and telemetry/steps.jsonl records no failed scrape: the scrape was removed after the run",
			k, file, why)})
	}
}

// checkCacheScrapes (check 6) holds the cache counters of
// telemetry/steps.jsonl, from which claims' cache_hits are computed, to
// the raw /metrics scrapes they were read from, and says which steps'
// cache hits were not observed at all.
func checkCacheScrapes(c *Check, ev *evidence, no *notObserved) {
	const name = "telemetry/steps.jsonl"
	unobserved := 0
	for i, s := range ev.tel.Steps {
		k := stepKey{s.Target, s.Concurrency, s.Repeat}
		for _, side := range []struct {
			when string
			got  map[string]float64
		}{{"before", s.CacheBefore}, {"measure", s.CacheMeasure}, {"after", s.CacheAfter}} {
			file := k.scrapeFile(side.when)
			sc, ok, err := readScrape(ev, file)
			switch {
			case err != nil && side.got != nil:
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s: cache_%s, yet %s does not parse (%v)", k, side.when, file, err)})
				continue
			case err != nil:
				continue
			case !ok && side.got != nil:
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s: cache_%s has counters, but there is no %s they were read from", k, side.when, file)})
				continue
			case !ok:
				continue
			}
			want := cacheCounters(sc)
			if side.got == nil && len(want) > 0 {
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s: no cache_%s, yet %s holds cache counters (%s): they were left out", k, side.when, file, counterList(want))})
				continue
			}
			if side.got != nil && !equalCounters(want, side.got) {
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s: cache_%s is {%s}, but %s says {%s}", k, side.when, counterList(side.got), file, counterList(want))})
			}
		}
		if _, _, err := claims.CacheDelta(s.CacheBefore, s.CacheAfter); err != nil {
			unobserved++
		}
	}
	if len(ev.tel.Steps) == 0 {
		no.add("cache hits (no telemetry/steps.jsonl)")
	} else if unobserved > 0 {
		no.add("cache hits of %d of %d steps (no cache counter in both scrapes: absent, not zero)", unobserved, len(ev.tel.Steps))
	}
}

// checkProbeScrapes (check 6) holds telemetry/cache-probes.jsonl, from
// which claims' probes[].counter_growth is computed, to the raw /metrics
// scrapes around each probe (servers/<t>/metrics/probe-1-{before,after}.prom),
// as checkCacheScrapes does for the steps. A probe of a run that recorded
// it (protocol.cache_probe) with no line while its scrapes exist had its
// line removed: FAIL.
func checkProbeScrapes(c *Check, ev *evidence, no *notObserved) {
	name := schemas.CacheProbesFile
	lines := map[string]bool{}
	unobserved := 0
	for i, l := range ev.tel.Probes {
		if lines[l.Target] {
			c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("a second line for %s's cache probe", l.Target)})
			continue
		}
		lines[l.Target] = true
		if _, ok := ev.records[schemas.ProbeRecordsPath(l.Target, l.Probe)]; !ok || l.Probe != 1 {
			c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s's cache probe %d has no records file %s", l.Target, l.Probe, schemas.ProbeRecordsPath(l.Target, l.Probe))})
			continue
		}
		for _, side := range []struct {
			when string
			got  map[string]float64
		}{{"before", l.CacheBefore}, {"after", l.CacheAfter}} {
			file := schemas.ProbeMetricsPath(l.Target, l.Probe, side.when)
			sc, ok, err := readScrape(ev, file)
			what := fmt.Sprintf("%s's cache probe: cache_%s", l.Target, side.when)
			switch {
			case err != nil && side.got != nil:
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s, yet %s does not parse (%v)", what, file, err)})
			case err != nil:
			case !ok && side.got != nil:
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s has counters, but there is no %s they were read from", what, file)})
			case !ok && l.ScrapeErrors[side.when] == "":
				c.add(Finding{Status: Fail, Kind: KindScrape, Path: file, Reason: fmt.Sprintf("missing, and %s records no failed scrape: the scrape was removed after the run", name)})
			case !ok:
			default:
				want := cacheCounters(sc)
				if side.got == nil && len(want) > 0 {
					c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s is absent, yet %s holds cache counters (%s): they were left out", what, file, counterList(want))})
				} else if side.got != nil && !equalCounters(want, side.got) {
					c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Line: i + 1, Reason: fmt.Sprintf("%s is {%s}, but %s says {%s}", what, counterList(side.got), file, counterList(want))})
				}
			}
		}
		if claims.ProbeGrowth(l) == nil {
			unobserved++
		}
	}
	for _, t := range ev.run.Targets {
		if lines[t.Name] || ev.run.Protocol.CacheProbe == 0 {
			continue
		}
		if _, probed := ev.records[schemas.ProbeRecordsPath(t.Name, 1)]; !probed {
			continue // check 7 says the probe is missing
		}
		var left []string
		for _, when := range []string{"before", "after"} {
			if f := schemas.ProbeMetricsPath(t.Name, 1, when); ev.f.has(f) {
				left = append(left, f)
			}
		}
		switch {
		case len(left) > 0:
			c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Reason: fmt.Sprintf("no line for %s's cache probe, yet %s exists: the recorder writes one after every probe, so it was removed after the run", t.Name, strings.Join(left, " and "))})
		case ev.f.has(schemas.StepsFile):
			c.add(Finding{Status: Fail, Kind: KindScrape, Path: name, Reason: fmt.Sprintf("no line and no /metrics scrape for %s's cache probe, although the run recorded its steps' telemetry: the recorder scrapes around every probe, so they were removed after the run", t.Name)})
		default:
			unobserved++
		}
	}
	if unobserved > 0 {
		no.add("cache counters over %d cache probe(s) (no cache counter in both scrapes: absent, not zero)", unobserved)
	}
}

// cacheCounters reads the known cache counters out of a scrape exactly as
// the recorder does (internal/fingerprint.CacheCounters): each summed over
// its label sets, a sum that is negative or infinite left out.
func cacheCounters(s scrape) map[string]float64 {
	out := map[string]float64{}
	for _, name := range engine.CacheCounterNames {
		f := s.family(name)
		if f == nil {
			continue
		}
		var sum float64
		for _, m := range f.GetMetric() {
			sum += value(m)
		}
		if sum >= 0 && !math.IsInf(sum, 1) {
			out[name] = sum
		}
	}
	return out
}

func equalCounters(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func counterList(m map[string]float64) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%g", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// checkSchedule (check 5) holds every record to the schedule the runner
// follows (internal/bench, "Protocol"): request seq of a step's phase sends
// clip (seq mod corpus size) and each clip's variants are numbered over the
// whole run in schedule order, warm-ups included. A request, repeat or step
// dropped from the middle of a run leaves the later variant numbers with a
// gap; a record moved to another step or seq sends the wrong clip (an item
// without a reference clip is sent as variant -1, never numbered). Every
// planned request keeps its number, sent or not (a stopped target's
// skipped steps too), so an incomplete run re-derives the same way.
func checkSchedule(c *Check, ev *evidence) {
	run := ev.run
	p := run.Protocol
	if len(run.Corpus) == 0 || !p.Perturb || len(p.Warmup) != len(p.Levels) || len(p.Requests) != len(p.Levels) {
		return // check 7 says why the protocol cannot be read
	}
	status := Fail
	if !run.Complete {
		// A run made before the runner kept a stopped target's skipped
		// numbers has the others' later variants numbered on: a WARN,
		// not proof of an edit.
		status = Warn
	}
	// A replay numbers each clip's variants from past the sealed run's; the
	// first number of each clip is then its own: the one run.json records
	// (replay_of.first_variant), else the smallest in the records.
	base := map[string]int64{}
	if run.ReplayOf != nil && run.ReplayOf.FirstVariant != nil {
		base = run.ReplayOf.FirstVariant
	} else if run.ReplayOf != nil {
		for _, f := range ev.recFiles {
			for _, r := range ev.records[f] {
				if b, ok := base[r.Clip]; !ok || r.Variant < b {
					base[r.Clip] = r.Variant
				}
			}
		}
	}
	// Clips with the same bytes share one numbering, as the runner counts
	// by the clip's SHA-256 (the plan's key): they would send the same
	// variants otherwise.
	used := map[string]int64{}
	sha := map[string]string{}
	for _, cl := range run.Corpus {
		sha[cl.ID] = cl.SHA256
	}
	levelOf := map[int]int{}
	for i, l := range p.Levels {
		levelOf[l] = i
	}
	reported := 0
	// A step measured again (attempts.go) numbers its later attempts'
	// variants past every number of the plan, in the order they ran.
	extra := plannedVariants(run)
	for _, k := range schedule(run) {
		li := levelOf[k.concurrency]
		w, n := warmupAt(p, li, k.repeat), p.Requests[li]
		type want struct {
			clip    string
			variant int64
		}
		planOf := func(counter map[string]int64) []want {
			plan := make([]want, w+n)
			for seq := range plan {
				i := seq
				if seq >= w {
					i = seq - w
				}
				entry := run.Corpus[i%len(run.Corpus)]
				cl := entry.ID
				if entry.NoInput() {
					plan[seq] = want{cl, -1} // nothing to perturb: sent unchanged, not numbered
					continue
				}
				plan[seq] = want{cl, base[cl] + counter[sha[cl]]}
				counter[sha[cl]]++
			}
			return plan
		}
		for _, at := range attemptFiles(ev, k) {
			counter := used
			if at.attempt > 1 {
				counter = extra
			}
			plan := planOf(counter)
			f := at.file
			for i, r := range ev.records[f] {
				seq := r.Seq
				if k, ok := retryOf(p, r); ok {
					seq = k // a retried warm-up sends its warm-up's variant again
				}
				if seq < 0 || seq >= len(plan) {
					continue // check 7 reports seqs out of range
				}
				exp := plan[seq]
				if reported >= MaxFindings && (r.Clip != exp.clip || r.Variant != exp.variant) {
					// Counted, not written: a million renumbered records
					// cost a counter (the CLI prints "... and N more").
					c.Status = max(c.Status, status)
					c.Omitted++
					continue
				}
				switch {
				case r.Clip != exp.clip:
					c.add(Finding{Status: status, Path: f, Line: i + 1, Reason: fmt.Sprintf("seq %d sent clip %s, but the schedule sends clip %s at seq %d of this step", r.Seq, r.Clip, exp.clip, r.Seq)})
					reported++
				case r.Variant != exp.variant:
					c.add(Finding{Status: status, Path: f, Line: i + 1, Reason: fmt.Sprintf("clip %s variant %d, but counted over the run in schedule order (warm-ups included) this request is its variant %d: a request, repeat, step or attempt is missing before it, or the records were renumbered",
						r.Clip, r.Variant, exp.variant)})
					reported++
				}
			}
		}
	}
	checkProbeSchedule(c, ev, status, base, used, sha)
}

// tailTolerance is how long a run may go on after its last step ended:
// the probes after the sweep, then the samplers stop and run.json is
// written, seconds in all (a server that hangs on its probes can take
// longer, hence a WARN).
const tailTolerance = 60 * time.Second

// checkRunTail (check 7) compares the end of the last step with what was
// recorded after it: the telemetry samples run until the sweep's end and
// run.json's ended_at comes after them. Steps dropped from the end of a
// run leave both far behind its last record, unless they were trimmed too.
func checkRunTail(c *Check, ev *evidence) {
	var lastEnd int64
	seen := false
	for _, f := range ev.recFiles {
		for _, r := range ev.records[f] {
			lastEnd, seen = max(lastEnd, r.EndNs), true
		}
	}
	if !seen || !ev.run.Complete {
		return
	}
	var lastSample int64
	for _, h := range ev.tel.Host {
		lastSample = max(lastSample, h.TNs)
	}
	for _, g := range ev.tel.GPU {
		lastSample = max(lastSample, g.TNs)
	}
	if d := time.Duration(lastSample - lastEnd); d > tailTolerance {
		c.warnf("telemetry", "samples go on for %s after the last step ended: were steps left out at the end of the run?", d.Round(time.Second))
	}
	if !ev.run.EndedAt.IsZero() {
		if d := ev.run.EndedAt.Sub(ev.run.StartedAt) - time.Duration(lastEnd); d > tailTolerance {
			c.warnf("run.json", "ended_at is %s after the last step ended: were steps left out at the end of the run?", d.Round(time.Second))
		}
	}
}

// checkServerSheds holds a step's records to the server's own count of
// how its requests ended, where its request counter's status label has
// terminal values (engine.RequestCounter.StatusShed, StatusFailed,
// StatusCancelled: SGLang-Omni's sglang_omni:asr_requests_total):
//
//   - refusals: the server refused at least every request the records
//     call shed (schemas.ErrShed), so fewer is a FAIL (records of
//     refusals the server never made); more is other traffic, a WARN;
//   - failures: the records' HTTP errors and stream error events
//     (ErrHTTP, ErrStreamError) against its failed count, and the
//     requests the client gave up on (ErrTimeout, ErrCanceled) against
//     its cancelled count: fewer on the server's side is a WARN only, as
//     which answers the engine counts failed (a 400?) or cancelled was
//     not read.
func checkServerSheds(c *Check, k stepKey, before, after scrape, rc *engine.RequestCounter, recs []schemas.Record, where string) {
	for _, o := range []struct {
		value   string
		classes []string
		what    string
		fail    bool
	}{
		{rc.StatusShed, []string{schemas.ErrShed}, "shed", true},
		{rc.StatusFailed, []string{schemas.ErrHTTP, schemas.ErrStreamError}, "failed (HTTP errors, stream error events)", false},
		{rc.StatusCancelled, []string{schemas.ErrTimeout, schemas.ErrCanceled}, "given up by the client (timeouts, cancels)", false},
	} {
		if o.value == "" {
			continue
		}
		b, okb := before.counterSum(rc.Name, rc.Match, rc.StatusLabel, o.value)
		a, oka := after.counterSum(rc.Name, rc.Match, rc.StatusLabel, o.value)
		if !okb || !oka || a < b {
			continue
		}
		n := 0
		for _, r := range recs {
			if slices.Contains(o.classes, r.ErrorClass) {
				n++
			}
		}
		d := a - b
		switch {
		case d < float64(n) && o.fail:
			c.failf(where, nil, "%s: the records call %d requests %s, yet the server counted %g (%s{%s=%q} grew from %g to %g): records of refusals the server never made",
				k, n, o.what, d, rc.Name, rc.StatusLabel, o.value, b, a)
		case d < float64(n):
			c.warnf(where, "%s: the records have %d requests %s, the server counted %g as %s (%s{%s=%q})",
				k, n, o.what, d, o.value, rc.Name, rc.StatusLabel, o.value)
		case d > float64(n) && o.fail:
			c.warnf(where, "%s: the server counted %g refusals (%s{%s=%q}), the records %d shed: other traffic reached the server during the step, or records are missing",
				k, d, rc.Name, rc.StatusLabel, o.value, n)
		}
	}
}
