package verify

// Knobs held against behaviour (check 8): a server limited to M running
// requests cannot have served more than M at once. Its own inference
// histogram says how long its requests ran, so over a step
//
//	sum of inference times <= M x the step's wall time
//
// (at most M requests are running at any instant, and each request's
// inference time is time it was running). A knob edited to a lower value
// than the server ran with (probes rewritten so that "max running
// requests differs" reads "same") breaks that law wherever the records
// show more than M in flight without the server queueing them.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/task"
)

// preemptions is vLLM's count of requests sent back to waiting
// (vllm/v1/metrics/loggers.py@a6f0308c, "vllm:num_preemptions", exposed
// with _total). vLLM's inference time runs from a request's first
// scheduling to its last token (output_processor.py do_tracing
// @d0782260: last_token_ts - scheduled_ts), preemptions included, so a
// step with preemptions does not bound it.
const preemptions = "vllm:num_preemptions_total"

// checkKnobsAgainstLoad holds each target's max running requests (served
// or declared, as checkKnobs reads it) to its inference histogram over
// every step whose records had more requests in flight than the limit.
// The bound is widened by 1 % for the clocks' rates plus 2 ms a request
// for their reading edges (eventsSlack). Broken with a served limit:
// FAIL (the server's own account of itself and of its work disagree);
// with a declared one: WARN (the launch command may not be what ran).
//
// It reports whether no limit was contradicted.
func checkKnobsAgainstLoad(c *Check, ev *evidence) bool {
	held := true
	var inference *engine.StageFamily
	for i := range engine.StageFamilies {
		// A family of one task (SGLang-Omni's sglang_omni:asr_engine_latency_seconds)
		// sums the engine time of a request's chunks, which run side by
		// side: M running requests can sum more than M x the wall time.
		if engine.StageFamilies[i].Stage == engine.StageInference && engine.StageFamilies[i].Task == "" {
			inference = &engine.StageFamilies[i]
			break
		}
	}
	if inference == nil {
		return true
	}
	// A session (a realtime stream) is one engine request that stays
	// scheduled while it waits for audio: vLLM's newer scheduler counts
	// such paused sessions against max_num_seqs, older ones
	// (vllm/v1/core/sched/scheduler.py@00024d31) admit past them, so
	// sessions' inference times may overlap beyond M without any knob
	// being edited. The law bounds requests, not sessions.
	if tk, err := task.ForRun(ev.run); err == nil {
		if _, sessions := tk.(task.Sessioner); sessions {
			return true
		}
	}
	var queue *engine.StageFamily
	for i := range engine.StageFamilies {
		if f := &engine.StageFamilies[i]; f.Stage == engine.StageQueue && familyPrefix(f.Family) == familyPrefix(inference.Family) {
			queue = f
			break
		}
	}
	for _, t := range ev.run.Targets {
		k := targetKnobs(ev, t, "before").knobs[engine.KnobMaxRunning]
		if k.Source == "" || k.Source == fingerprint.KnobAbsent {
			k = targetKnobs(ev, t, "after").knobs[engine.KnobMaxRunning]
		}
		m, err := strconv.Atoi(k.Value)
		if err != nil || m <= 0 || (k.Source != fingerprint.KnobServed && k.Source != fingerprint.KnobDeclared) {
			continue
		}
		for _, s := range schedule(ev.run) {
			if s.target != t.Name {
				continue
			}
			recs := ev.records[s.file()]
			if len(recs) == 0 {
				continue
			}
			before, okb, errb := readScrape(ev, s.scrapeFile("before"))
			after, oka, erra := readScrape(ev, s.scrapeFile("after"))
			if !okb || !oka || errb != nil || erra != nil {
				continue
			}
			// A preempted request's inference time includes its wait back in
			// the queue, never more than its own latency: each preemption
			// widens both laws by the step's longest request, and skips
			// neither.
			preempted := 0.0
			if pb, ok := before.counterSum(preemptions, nil, "", ""); ok {
				if pa, _ := after.counterSum(preemptions, nil, "", ""); pa > pb {
					preempted = pa - pb
				}
			}
			first, last, longest := recs[0].StartNs, recs[0].EndNs, int64(0)
			for _, r := range recs {
				first, last, longest = min(first, r.StartNs), max(last, r.EndNs), max(longest, r.EndNs-r.StartNs)
			}
			wall := float64(last-first) / 1e9
			widen := preempted * float64(longest) / 1e9
			if claims.PeakInFlight(recs) <= m {
				if !checkQueueBelowLimit(c, ev, s, queue, inference, before, after, m, k, widen) {
					held = false
				}
				continue
			}
			hb, ok1 := before.histogram(inference.Family, inference.Match)
			ha, ok2 := after.histogram(inference.Family, inference.Match)
			if !ok1 || !ok2 || ha.count < hb.count {
				continue
			}
			ran := ha.sum - hb.sum
			n := ha.count - hb.count
			bound := float64(m)*wall*1.01 + 0.002*n + widen
			if ran <= bound {
				continue
			}
			waited := ""
			if queue != nil {
				qb, ok1 := before.histogram(queue.Family, queue.Match)
				qa, ok2 := after.histogram(queue.Family, queue.Match)
				if ok1 && ok2 {
					waited = fmt.Sprintf(", and its %s grew by %.3f s in all", queue.Family, qa.sum-qb.sum)
				}
			}
			msg := fmt.Sprintf("%s: max running requests %d (%s: %s), yet the records had %d requests in flight and the server's %s grew by %.3f s over the step's %.3f s: more than %d requests ran at once%s, which a server limited to %d cannot do",
				s, m, k.Source, k.From, claims.PeakInFlight(recs), inference.Family, ran, wall, m, waited, m)
			held = false
			if k.Source == fingerprint.KnobServed {
				c.failf(s.scrapeFile("after"), nil, "%s: the knob was edited, or the server's self-description is not what ran", msg)
			} else {
				c.warnf(s.scrapeFile("after"), "%s: the launch command declares another limit than the server ran with", msg)
			}
		}
	}
	return held
}

// Queueing below the limit: a server that runs up to M requests at once
// admits every request of a step that never had more than M in flight,
// so its queue time stays near zero. A mean wait over
// queueBelowLimitSlack (and over a tenth of the mean inference time) is
// queueing the limit does not allow: a max running requests raised
// above what the server ran with (the law above holds M only from above).
// Preemptions (memory pressure sends requests back to waiting) widen it
// by the step's longest request each.
const queueBelowLimitSlack = 0.005

// checkQueueBelowLimit holds limit m from below over one step whose
// records never had more than m in flight; it reports whether m held.
func checkQueueBelowLimit(c *Check, ev *evidence, s stepKey, queue, inference *engine.StageFamily, before, after scrape, m int, k fingerprint.Knob, widen float64) bool {
	if queue == nil {
		return true
	}
	qb, ok1 := before.histogram(queue.Family, queue.Match)
	qa, ok2 := after.histogram(queue.Family, queue.Match)
	if !ok1 || !ok2 || qa.count <= qb.count {
		return true
	}
	n := qa.count - qb.count
	waited := qa.sum - qb.sum - widen
	meanRun := 0.0
	if ib, ok := before.histogram(inference.Family, inference.Match); ok {
		if ia, ok := after.histogram(inference.Family, inference.Match); ok && ia.count > ib.count {
			meanRun = (ia.sum - ib.sum) / (ia.count - ib.count)
		}
	}
	bound := max(queueBelowLimitSlack, 0.1*meanRun)
	if waited/n <= bound {
		return true
	}
	msg := fmt.Sprintf("%s: max running requests %d (%s: %s), and the records never had more than %d requests in flight, yet the server's %s grew by %.3f s over %.0f requests (%.1f ms each, more than the %.1f ms a server that admits every one explains): it queued requests a limit of %d would have run",
		s, m, k.Source, k.From, claims.PeakInFlight(ev.records[s.file()]), queue.Family, qa.sum-qb.sum, n, 1e3*waited/n, 1e3*bound, m)
	if k.Source == fingerprint.KnobServed {
		c.failf(s.scrapeFile("after"), nil, "%s: the knob was edited, or the server's self-description is not what ran", msg)
	} else {
		c.warnf(s.scrapeFile("after"), "%s: the launch command declares another limit than the server ran with", msg)
	}
	return false
}

// familyPrefix is a metric family's namespace ("vllm" of
// "vllm:request_queue_time_seconds"): the engine that exposes it.
func familyPrefix(family string) string {
	p, _, _ := strings.Cut(family, ":")
	return p
}
