package verify

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// checkProtocol is check 7: the records show the protocol run.json
// declares: one file per target, level and repeat, with the declared
// warm-ups and measured requests, never more than C in flight (and C, or
// as many as there are, while measuring; see checkInFlight), each worker
// one request at a time, warm-ups before measurement, and the
// steps one after the other in the declared order.
func checkProtocol(rep *Report, ev *evidence) {
	c := rep.Check(CheckProtocol)
	run := ev.run
	p := run.Protocol
	if !run.Complete {
		warnIncomplete(c, ev)
	}
	if len(p.Requests) != len(p.Levels) || len(p.Warmup) != len(p.Levels) || p.Repeats < 1 {
		c.failf("run.json", nil, "protocol is inconsistent: %d levels, %d request counts, %d warm-up counts, %d repeats",
			len(p.Levels), len(p.Requests), len(p.Warmup), p.Repeats)
		c.Summary = "protocol unreadable"
		return
	}
	sw := checkSweep(c, ev, ruleOf(c, run))
	probes := checkRecordFiles(c, ev, sw)
	checkProbesAsked(c, ev)
	checkStepOrder(c, sw.sched)
	if !run.Complete && sw.missing > 0 {
		c.warnf("", "%d of %d steps have no records (the run stopped early)", sw.missing, sw.steps)
	}
	var no notObserved
	checkStepWindows(c, ev, &no)
	checkServerCounters(c, ev, &no)
	checkSuccesses(c, ev)
	checkRunTail(c, ev)
	checkAcrossSteps(c, ev)
	again := checkAttempts(c, ev)
	gap := checkStepGaps(c, ev, &no)
	checkClientSaturation(c, ev, &no)
	trip := checkRoundTrip(c, ev, &no)
	trip += checkRateSearch(c, ev)
	sum := protocolSummary(c, run, sw.steps, gap, probes)
	if len(again) > 0 {
		sum += fmt.Sprintf("; measured again after a stalled closed loop, the last attempt kept and the discarded ones sealed: %s", strings.Join(again, ", "))
	}
	c.Summary = no.summary(c, sum+trip)
}

// warnIncomplete says that run.json records a run that did not complete:
// its claims cover only what was measured.
func warnIncomplete(c *Check, ev *evidence) {
	why := ev.run.Incomplete
	if why == "" {
		why = "no reason given"
	}
	if ev.bundle != nil {
		c.warnKindf(KindIncomplete, "run.json", "THE RUN DID NOT COMPLETE (%s): it was sealed anyway, on request, and its claims cover only what was measured", why)
		return
	}
	// A run directory was never sealed: seal refuses it without
	// --allow-incomplete.
	c.warnKindf(KindIncomplete, "run.json", "THE RUN DID NOT COMPLETE (%s): its claims cover only what was measured (a run directory, not sealed)", why)
}

// stepSpan is when one step's records ran: its first start and last end.
type stepSpan struct {
	file        string
	first, last int64
}

// sweep is what checkSweep found of the protocol's steps: the records
// files they expect, the spans of those that have records, in the
// declared order, and how many steps there are and how many have no file.
type sweep struct {
	expected       map[string]bool
	sched          []stepSpan
	missing, steps int
}

// checkSweep walks the protocol's steps in the declared order (levels,
// repeats, then targets, reversed on even repeats under target_order
// alternate) and checks each step's records file (checkStep). A missing
// file fails a complete run; an incomplete one is only counted.
func checkSweep(c *Check, ev *evidence, rule task.Rule) sweep {
	run := ev.run
	p := run.Protocol
	sw := sweep{expected: map[string]bool{}}
	for i, conc := range p.Levels {
		for r := 1; r <= p.Repeats; r++ {
			order := slices.Clone(run.Targets)
			if p.TargetOrder == "alternate" && r%2 == 0 {
				slices.Reverse(order)
			}
			for _, t := range order {
				f := stepFile(t.Name, conc, r)
				sw.expected[f] = true
				sw.steps++
				recs, ok := ev.records[f]
				if !ok {
					if run.Complete {
						c.failf(f, nil, "missing: the protocol has %s at c=%d repeat %d", t.Name, conc, r)
					}
					sw.missing++
					continue
				}
				var open *openStep
				if p.Mode == schemas.ModeOpen {
					open = &openStep{seed: run.Seed, proto: p, level: i}
				}
				first, last := checkStep(c, f, recs, rule, t.Name, conc, r, warmupAt(p, i, r), p.Requests[i], p.WarmupRetries, run.Complete, open)
				if len(recs) > 0 {
					sw.sched = append(sw.sched, stepSpan{f, first, last})
				}
			}
		}
	}
	return sw
}

// checkRecordFiles holds every records file to the protocol: a step of
// the sweep, or a target's cache probe (checkProbeFile, after the sweep's
// last step); it returns how many probe files there are.
func checkRecordFiles(c *Check, ev *evidence, sw sweep) int {
	probes := 0
	for _, t := range ev.run.Targets {
		sw.expected[schemas.ProbeRecordsPath(t.Name, 1)] = true
	}
	for _, f := range ev.recFiles {
		switch {
		case !sw.expected[f] && schemas.IsProbeRecords(f):
			c.failf(f, nil, "not a cache probe of the run: a target's probe is %s", schemas.ProbeRecordsPath("<target>", 1))
		case schemas.IsProbeRecords(f):
			probes++
			last := int64(0)
			if len(sw.sched) > 0 {
				last = sw.sched[len(sw.sched)-1].last
			}
			checkProbeFile(c, f, ev.records[f], last, ev.run.Protocol.CacheProbe)
		case !sw.expected[f]:
			c.failf(f, nil, "not a step of the protocol in run.json")
		}
	}
	return probes
}

// checkStepOrder holds the steps, in the declared order, to one after the
// other: each starts after the one before it ended.
func checkStepOrder(c *Check, sched []stepSpan) {
	for j := 1; j < len(sched); j++ {
		if sched[j].first < sched[j-1].last {
			c.failf(sched[j].file, nil, "started (%d ns) before %s ended (%d ns): steps must run one after the other, in the declared order",
				sched[j].first, sched[j-1].file, sched[j-1].last)
		}
	}
}

// protocolSummary is check 7's summary before what was not observed is
// added: what held, the largest gap between steps (gap, negative when
// not measured) and the cache probes.
func protocolSummary(c *Check, run *schemas.Run, steps int, gap time.Duration, probes int) string {
	p := run.Protocol
	var s string
	if c.Status == Pass {
		s = fmt.Sprintf("%d steps (%d targets × %d levels × %d repeats): counts, warm-ups, %s, timestamps in order",
			steps, len(run.Targets), len(p.Levels), p.Repeats, peakHeld(p))
	} else {
		s = fmt.Sprintf("%d steps checked", steps)
	}
	if gap >= 0 && c.Status != Fail && !hasKind(c, KindStepGap) {
		s += fmt.Sprintf(", steps back to back (at most %s between two beyond their recorded scrapes; bound %s + %s a request)", ms(int64(gap)), StepGapSlack, StepGapPerRequest)
	}
	if probes > 0 && c.Status != Fail {
		s += fmt.Sprintf("; %d cache probe(s) one request at a time after the sweep", probes)
	}
	return s
}

// checkProbeFile checks one cache probe's records
// (records/<target>/probe-<n>.jsonl): every record of the folder's target,
// phase probe, concurrency 1 and repeat 1, one request at a time (each
// starts after the one before it ended, in seq order), after the sweep's
// last step ended (sweepEnd), so it took nothing from the sweep.
//
// pairs is run.json's protocol.cache_probe; 0 (a run made before it was
// recorded) takes it from the file's length. Each seq must send what the
// probe's schedule sends there (claims.ProbeIsRepeat): a repeat
// (sample_index -1) or a variant.
func checkProbeFile(c *Check, f string, recs []schemas.Record, sweepEnd int64, pairs int) {
	target := strings.Split(f, "/")[1]
	if pairs == 0 {
		pairs = max(len(recs)-claims.ProbeWarmup, 0) / 2
	}
	var prevEnd int64
	for i, r := range recs {
		line := i + 1
		switch {
		case r.Target != target:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("target %q in %s's probe", r.Target, target)})
		case r.Phase != schemas.PhaseProbe:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("phase %q in a probe file", r.Phase)})
		case r.Concurrency != 1 || r.Repeat != 1:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("concurrency %d, repeat %d: a probe runs at concurrency 1, repeat 1", r.Concurrency, r.Repeat)})
		case r.Seq != i:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("seq %d at line %d: a probe's records are written in order", r.Seq, line)})
		case r.StartNs < sweepEnd:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("started (%d ns) before the sweep's last step ended (%d ns)", r.StartNs, sweepEnd)})
		case i > 0 && r.StartNs < prevEnd:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("started (%d ns) before the previous probe request ended (%d ns): a probe runs one request at a time", r.StartNs, prevEnd)})
		case claims.ProbeIsRepeat(r.Seq, pairs) != (r.SampleIndex < 0):
			want := "a 1-LSB variant"
			if claims.ProbeIsRepeat(r.Seq, pairs) {
				want = "the clip's identical bytes (sample_index -1)"
			}
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("seq %d has sample_index %d, but the probe's schedule sends %s at seq %d: repeats and variants were swapped or moved", r.Seq, r.SampleIndex, want, r.Seq)})
		}
		prevEnd = r.EndNs
	}
}

// checkProbesAsked holds the cache probe records to run.json's
// protocol.cache_probe: a run that asked for a probe of N pairs has, per
// target, records/<t>/probe-1.jsonl with claims.ProbeWarmup + 2N records.
// In a complete run a probe missing or cut short was removed after the
// run (the runner probes every target that finished its sweep): FAIL. In
// an incomplete run the target may have stopped first: WARN. A probe file
// in a run that records no probe (made before protocol.cache_probe
// existed) is a WARN: nothing says how long it should be.
func checkProbesAsked(c *Check, ev *evidence) {
	run := ev.run
	pairs := run.Protocol.CacheProbe
	for _, t := range run.Targets {
		f := schemas.ProbeRecordsPath(t.Name, 1)
		recs, ok := ev.records[f]
		if pairs == 0 {
			if ok {
				c.warnKindf(KindCacheProbe, f, "a cache probe, but run.json's protocol records none (no cache_probe: a run made before it was recorded); its length is not checked")
			}
			continue
		}
		want := claims.ProbeWarmup + 2*pairs
		status := Fail
		why := "the runner probes every target that finished its sweep, so it was removed after the run"
		if !run.Complete {
			status, why = Warn, "the run did not complete, so the target may have stopped before its probe"
		}
		switch {
		case !ok:
			c.add(Finding{Status: status, Kind: KindCacheProbe, Path: f, Reason: fmt.Sprintf("missing: run.json asks for a cache probe of %d pairs (protocol.cache_probe) and %s has none; %s", pairs, t.Name, why)})
		case len(recs) < want:
			c.add(Finding{Status: status, Kind: KindCacheProbe, Path: f, Reason: fmt.Sprintf("%d records, but a probe of %d pairs sends %d (%d warm-ups and %d pairs); %s", len(recs), pairs, want, claims.ProbeWarmup, pairs, why)})
		case len(recs) > want:
			c.add(Finding{Status: Fail, Kind: KindCacheProbe, Path: f, Reason: fmt.Sprintf("%d records, but a probe of %d pairs sends %d", len(recs), pairs, want)})
		}
	}
}

// peakHeld says what check 7 holds the measured peak in-flight to: C, or
// the measured requests of a level that measures fewer than C (at most
// that many are ever in flight, so such a level does not measure
// concurrency C, and the summary names it).
func peakHeld(p schemas.Protocol) string {
	if p.Mode == schemas.ModeOpen { // no C: levels are offered rates
		s := fmt.Sprintf("sends on the schedule re-derived from the seed (none early, none over %s late)", LatenessBound)
		if p.MaxConcurrency > 0 {
			s += fmt.Sprintf(", peak in-flight within max_concurrency %d", p.MaxConcurrency)
		}
		return s
	}
	var fewer []string
	for i, conc := range p.Levels {
		if i < len(p.Requests) && p.Requests[i] < conc {
			fewer = append(fewer, fmt.Sprintf("c=%d measures only %d requests per repeat, fewer than C", conc, p.Requests[i]))
		}
	}
	if len(fewer) == 0 {
		return "peak in-flight == C"
	}
	return "peak in-flight == min(C, measured requests) (" + strings.Join(fewer, "; ") + ": at most that many are ever in flight, so the level does not measure concurrency C)"
}

// warmupAt is the number of warm-ups of level li in repeat r (1-based):
// with warmup_once (the seed client's schedule, --compat seedtts) only the
// first repeat of a level has them.
func warmupAt(p schemas.Protocol, li, repeat int) int {
	if p.WarmupOnce && repeat > 1 {
		return 0
	}
	return p.Warmup[li]
}

// retryOf reports whether r is a retried warm-up of its step (phase
// warmup, seq past the step's planned warm-ups and measured requests, as
// the runner numbers them: internal/bench.WarmupRetries) and, if so, the
// seq of the planned warm-up it sent again (retry k sends warm-up k mod
// the step's warm-ups).
func retryOf(p schemas.Protocol, r schemas.Record) (int, bool) {
	li := slices.Index(p.Levels, r.Concurrency)
	if r.Phase != schemas.PhaseWarmup || li < 0 || li >= len(p.Warmup) || li >= len(p.Requests) || r.Repeat < 1 {
		return 0, false
	}
	w, n := warmupAt(p, li, r.Repeat), p.Requests[li]
	if w == 0 || r.Seq < w+n {
		return 0, false
	}
	return (r.Seq - w - n) % w, true
}

// ruleOf is the success rule of run's task, the one run.json must name
// (protocol.success_rule); nil when the task is unknown, and said so:
// records' ok cannot be checked then.
func ruleOf(c *Check, run *schemas.Run) task.Rule {
	tk, err := task.ForRun(run)
	if err != nil {
		c.failf("run.json", err, "%v: its success rule cannot be applied to the records", err)
		return nil
	}
	if run.Protocol.SuccessRule != tk.SuccessRule() {
		c.failf("run.json", nil, "protocol.success_rule is %q, but the rule of task %q is %q", run.Protocol.SuccessRule, tk.Name(), tk.SuccessRule())
	}
	return tk
}

// checkOutcome applies the run's success rule to one record again: an ok
// record must be an HTTP 200 the rule calls a success, a failed one must
// say its class, and what was scored must be what the rule derives from
// the output as returned, or a record could score an output the server
// never sent. A failure's partial output (a cut stream) is not scored:
// failures are excluded from quality, so its scored output may stay
// empty. claims count ok as success.
func checkOutcome(c *Check, f string, line int, rule task.Rule, r schemas.Record) {
	if rule == nil {
		return
	}
	scored, class, why := rule.Score(r.Text)
	switch {
	case r.OK && (r.Status != task.SuccessStatus(rule) || r.ErrorClass != "" || class != ""):
		reason := fmt.Sprintf("ok, yet status %d, error_class %q, and its output scores as %q: not a success by the rule %s",
			r.Status, r.ErrorClass, scored, rule.SuccessRule())
		if class != "" {
			reason += fmt.Sprintf(" (the rule's failure class: %s, %s)", class, why)
		}
		c.add(Finding{Status: Fail, Path: f, Line: line, Reason: reason})
	case !r.OK && r.ErrorClass == "":
		c.add(Finding{Status: Fail, Path: f, Line: line, Reason: "failed, yet no error_class"})
	}
	if r.Scored != scored && (r.OK || r.Scored != "") {
		c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("text_scored %q is not what text %q scores as (%q)", r.Scored, r.Text, scored)})
	}
}

// checkStep checks one records file; it returns the step's first start
// and last end.
//
// An open-loop step (open non-nil) is held to its schedule instead of the
// closed loop (checkOpenSchedule): its workers are its slots, never more of
// them in flight, each one request at a time.
func checkStep(c *Check, f string, recs []schemas.Record, rule task.Rule, target string, conc, repeat, warmup, requests, retries int, complete bool, open *openStep) (first, last int64) {
	slots := conc
	if open != nil {
		slots = open.workers(warmup, requests)
	}
	t := tallyStep(c, f, recs, rule, target, conc, repeat, warmup, requests, slots, open)
	for s := range t.seqs {
		if s < 0 || s >= warmup+requests+len(t.retried) {
			c.failf(f, nil, "seq %d outside 0..%d", s, warmup+requests+len(t.retried)-1)
			break
		}
	}
	checkRetries(c, f, recs, t.retried, warmup, requests, retries)
	count := func(what string, got, want int) {
		switch {
		case got == want:
		case got < want && !complete:
			c.warnf(f, "%d %s of %d (the run stopped early)", got, what, want)
		default:
			c.failf(f, nil, "%d %s, the protocol says %d", got, what, want)
		}
	}
	count("warm-up requests", t.warm, warmup)
	count("measured requests", t.meas, requests)
	if t.warmEnd >= 0 && t.measStart >= 0 && t.measStart < t.warmEnd {
		c.failf(f, nil, "a measured request started (%d ns) before the warm-ups ended (%d ns)", t.measStart, t.warmEnd)
	}
	checkWorkersSerial(c, f, t.byWorker)
	planned := plannedOf(recs, t.retried, warmup, requests)
	if open != nil {
		if peak := claims.PeakInFlight(planned); open.proto.MaxConcurrency > 0 && peak > open.proto.MaxConcurrency {
			c.failf(f, nil, "peak in-flight %d, more than the max_concurrency %d run.json declares", peak, open.proto.MaxConcurrency)
		}
		checkOpenSchedule(c, f, open, repeat, warmup, requests, planned)
		return t.first, t.last
	}
	checkInFlight(c, f, planned, conc, complete)
	checkClosedLoop(c, f, planned, conc, complete)
	checkSteady(c, f, planned, conc)
	return t.first, t.last
}

// stepTally is what one pass over a step's records gathers for
// checkStep's checks across them.
type stepTally struct {
	first, last        int64            // the step's first start (-1: no records) and last end
	warm, meas         int              // planned warm-ups and measured requests
	retried            []schemas.Record // warm-ups sent again, seqs past the measured ones
	warmEnd, measStart int64            // -1 when the step has none
	seqs               map[int]bool
	byWorker           map[int][]schemas.Record
}

// tallyStep checks each record of a step on its own (its step, a seq
// seen once, its phase, its timestamps, its outcome, a worker among the
// step's slots) and tallies what the checks across records need.
func tallyStep(c *Check, f string, recs []schemas.Record, rule task.Rule, target string, conc, repeat, warmup, requests, slots int, open *openStep) *stepTally {
	t := &stepTally{first: -1, warmEnd: -1, measStart: -1, seqs: make(map[int]bool, len(recs)), byWorker: map[int][]schemas.Record{}}
	for i, r := range recs {
		line := i + 1
		if r.Target != target || r.Concurrency != conc || r.Repeat != repeat {
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("record of %s c=%d repeat %d in the file of %s c=%d repeat %d",
				r.Target, r.Concurrency, r.Repeat, target, conc, repeat)})
		}
		if t.seqs[r.Seq] {
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("seq %d appears twice", r.Seq)})
		}
		t.seqs[r.Seq] = true
		switch {
		case r.Phase == schemas.PhaseWarmup && warmup > 0 && r.Seq >= warmup+requests:
			t.retried = append(t.retried, r)
			t.warmEnd = max(t.warmEnd, r.EndNs)
		case r.Phase == schemas.PhaseWarmup:
			t.warm++
			t.warmEnd = max(t.warmEnd, r.EndNs)
		case r.Phase == schemas.PhaseMeasure:
			t.meas++
			if t.measStart < 0 || r.StartNs < t.measStart {
				t.measStart = r.StartNs
			}
		default:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("phase %q", r.Phase)})
		}
		switch {
		case r.StartNs < 0 || r.EndNs < r.StartNs:
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("start_ns %d, end_ns %d: time runs backwards", r.StartNs, r.EndNs)})
		case r.FirstByteNs != 0 && (r.FirstByteNs < r.StartNs || r.FirstByteNs > r.EndNs):
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("first_byte_ns %d is outside [start_ns %d, end_ns %d]", r.FirstByteNs, r.StartNs, r.EndNs)})
		}
		checkOutcome(c, f, line, rule, r)
		if r.Worker < 0 || r.Worker >= slots {
			reason := fmt.Sprintf("worker %d at concurrency %d", r.Worker, conc)
			if open != nil {
				reason = fmt.Sprintf("worker %d of the step's %d slots", r.Worker, slots)
			}
			c.add(Finding{Status: Fail, Path: f, Line: line, Reason: reason})
		}
		t.byWorker[r.Worker] = append(t.byWorker[r.Worker], r)
		if t.first < 0 || r.StartNs < t.first {
			t.first = r.StartNs
		}
		t.last = max(t.last, r.EndNs)
	}
	return t
}

// checkWorkersSerial holds each worker to one request at a time: each of
// its requests starts after the one before it ended. It says the first
// overlap of each worker.
func checkWorkersSerial(c *Check, f string, byWorker map[int][]schemas.Record) {
	for _, w := range sortedInts(byWorker) {
		rs := byWorker[w]
		slices.SortFunc(rs, func(a, b schemas.Record) int { return cmpInt(a.StartNs, b.StartNs) })
		for j := 1; j < len(rs); j++ {
			if rs[j].StartNs < rs[j-1].EndNs {
				c.failf(f, nil, "worker %d started seq %d (%d ns) before its seq %d ended (%d ns): a worker sends one request at a time",
					w, rs[j].Seq, rs[j].StartNs, rs[j-1].Seq, rs[j-1].EndNs)
				break
			}
		}
	}
}

// plannedOf is a step's records less its retried warm-ups: the retries
// are sent one at a time after the planned warm-ups, so the closed loop
// is the planned requests'.
func plannedOf(recs, retried []schemas.Record, warmup, requests int) []schemas.Record {
	if len(retried) == 0 {
		return recs
	}
	planned := make([]schemas.Record, 0, len(recs)-len(retried))
	for _, r := range recs {
		if r.Phase != schemas.PhaseWarmup || r.Seq < warmup+requests {
			planned = append(planned, r)
		}
	}
	return planned
}

// checkRetries holds a step's retried warm-ups to the runner's rule
// (internal/bench, "Warm-ups"): at most protocol.warmup_retries of them,
// only after every planned warm-up failed, each only after the one before
// it failed and ended, one at a time.
func checkRetries(c *Check, f string, recs, retried []schemas.Record, warmup, requests, retries int) {
	if len(retried) == 0 {
		return
	}
	if len(retried) > retries {
		c.failf(f, nil, "%d warm-ups sent again, the protocol allows %d (warmup_retries)", len(retried), retries)
	}
	var lastEnd int64 = -1
	for _, r := range recs {
		if r.Phase == schemas.PhaseWarmup && r.Seq < warmup {
			if r.OK {
				c.failf(f, nil, "warm-up seq %d succeeded, yet %d warm-ups were sent again: a step's warm-ups are retried only when all of them failed", r.Seq, len(retried))
				return
			}
			lastEnd = max(lastEnd, r.EndNs)
		}
	}
	slices.SortFunc(retried, func(a, b schemas.Record) int { return a.Seq - b.Seq })
	for i, r := range retried {
		if r.Seq != warmup+requests+i {
			c.failf(f, nil, "retried warm-up seq %d: a step's retries take seqs %d.. in order, after its measured requests", r.Seq, warmup+requests)
			return
		}
		if r.StartNs < lastEnd {
			c.failf(f, nil, "retried warm-up seq %d started (%d ns) before the warm-up before it ended (%d ns): retries are sent one at a time", r.Seq, r.StartNs, lastEnd)
			return
		}
		if i > 0 && retried[i-1].OK {
			c.failf(f, nil, "retried warm-up seq %d was sent after seq %d succeeded", r.Seq, retried[i-1].Seq)
			return
		}
		lastEnd = r.EndNs
	}
}

// idleTolerance is how long a worker may seem idle while another starts a
// request before check 7 calls it idle: a scheduler or GC pause on a busy
// machine stays under it, a client that holds workers back does not.
const idleTolerance = 10 * time.Millisecond

// checkInFlight checks what the records prove about concurrency: never
// more than C requests in flight, in any phase (FAIL), and in the measured
// phase C of them at once, or all of them when there are fewer than C.
// Fewer can be legitimate: workers start one after another, and a fast
// server answers the first requests before the last worker has sent one.
// That is a WARN, unless a worker that had finished a request stayed idle
// while another worker started one (a request it should have taken): FAIL.
func checkInFlight(c *Check, f string, recs []schemas.Record, conc int, complete bool) {
	var meas []schemas.Record
	for _, ph := range []string{schemas.PhaseWarmup, schemas.PhaseMeasure} {
		var rs []schemas.Record
		for _, r := range recs {
			if r.Phase == ph {
				rs = append(rs, r)
			}
		}
		if peak := claims.PeakInFlight(rs); peak > conc {
			c.failf(f, nil, "peak in-flight %d in the %s phase, more than the concurrency %d", peak, ph, conc)
		}
		if ph == schemas.PhaseMeasure {
			meas = rs
		}
	}
	want := min(conc, len(meas))
	peak := claims.PeakInFlight(meas)
	if peak >= want || !complete {
		return
	}
	if idle, _ := idleWorker(meas, idleTolerance); idle != "" {
		c.failf(f, nil, "peak in-flight %d of %d measured requests at concurrency %d, and %s: a free worker must take the next request", peak, len(meas), conc, idle)
		return
	}
	c.warnf(f, "peak in-flight %d of %d measured requests at concurrency %d: the server answered requests before every worker had sent its first; no worker stayed idle while requests remained",
		peak, len(meas), conc)
}

// dispatchTolerance and maxStallShare are the stall rule's
// (internal/claims' Stalls, the one the runner applies too).
const (
	dispatchTolerance = claims.DispatchTolerance
	maxStallShare     = claims.MaxStallShare
)

// checkClosedLoop checks, in each phase of a step, what a closed loop of
// C workers leaves in the records: every worker 0..C-1 took part (when
// there were at least C requests), each sent its next request right after
// its previous one ended, and none stayed idle while another worker
// started a request it could have taken.
func checkClosedLoop(c *Check, f string, recs []schemas.Record, conc int, complete bool) {
	for _, ph := range []string{schemas.PhaseWarmup, schemas.PhaseMeasure} {
		var rs []schemas.Record
		for _, r := range recs {
			if r.Phase == ph {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		byWorker := map[int][]schemas.Record{}
		for _, r := range rs {
			byWorker[r.Worker] = append(byWorker[r.Worker], r)
		}
		// A worker whose goroutine started late may find no request left
		// when the others take them all at once (a fast phase); one missing
		// while requests kept starting long after the phase began was kept
		// out.
		firstStart, lastStart := rs[0].StartNs, rs[0].StartNs
		for _, r := range rs {
			firstStart, lastStart = min(firstStart, r.StartNs), max(lastStart, r.StartNs)
		}
		if len(rs) >= conc && len(byWorker) < conc && complete && lastStart-firstStart > int64(dispatchTolerance) {
			var idle []string
			for w := range conc {
				if _, ok := byWorker[w]; !ok {
					idle = append(idle, fmt.Sprint(w))
				}
			}
			c.failf(f, nil, "in the %s phase %d requests were sent by %d of the %d workers (worker %s sent none) over %.0f ms of starts: the records show a step done by fewer workers than its concurrency",
				ph, len(rs), len(byWorker), conc, strings.Join(idle, ", "), float64(lastStart-firstStart)/1e6)
		}
	}
	// Stalls: the rule the runner applied to the step too.
	for _, st := range claims.Stalls(recs, conc) {
		why := "a closed-loop worker sends its next request as soon as the previous one ends"
		if st.Idle {
			why = "a free worker must take the next request"
		}
		if st.Open() {
			c.failf(f, nil, "%s: %s; stalls add up to %.1f %% of the phase's worker time, more than a busy client explains (%.0f %%)", st.First, why, 100*st.Share, 100*maxStallShare)
		} else {
			c.warnf(f, "%s: the client stalled (stalls add up to %.1f %% of the phase's worker time, within the %.0f %% a busy client machine explains); the load dipped below C for that long", st.First, 100*st.Share, 100*maxStallShare)
		}
	}
}

// idleWorker is claims.IdleWorker: the stall rule's idle worker.
func idleWorker(recs []schemas.Record, tolerance time.Duration) (string, int64) {
	return claims.IdleWorker(recs, tolerance)
}

func sortedInts[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
