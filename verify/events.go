package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// The server as a second witness, request by request (check CheckEvents):
// the per-request stage times a run joined from the server's own evidence
// (vLLM's OpenTelemetry spans, SGLang-Omni's request-profiler events;
// internal/serverevents), against the records.
//
//   - servers/<t>/stages/c<C>-r<R>.jsonl must follow from the sealed raw
//     evidence (servers/<t>/otlp/*.binpb, servers/<t>/events/c<C>-r<R>/)
//     and the records, re-derived with the same functions the run used:
//     a stages file edited on its own FAILs.
//   - every measured record that claims success has the server's account
//     of it, when the step's evidence names its requests at all: FAIL
//     otherwise. The run waited for every success's span before writing,
//     and a record the server never saw is the signature of a fabricated
//     one; an exporter that drops spans (vLLM's batch processor does only
//     when its 2048-span queue overflows) is a broken witness, and the
//     verdict says the records cannot be held to it. Without ids to join
//     (SGLang-Omni answers a non-streamed request without its id), the
//     count still binds: the server must have seen at least as many
//     requests in the measured window as the records claim succeeded
//     (counts compared, its times not observed: the summary says so per
//     step); more than the step's measured records WARN (other traffic).
//   - no server time of a request (e2e, queue, prefill, decode, inference,
//     first token) exceeds the client's latency for the same request id by
//     more than eventsSlack: FAIL (the records' latencies were lowered);
//     and, over a step's successful joined requests, the median of client
//     latency less the server's e2e is not below -medianMarginSlack (FAIL:
//     every record shaved a little, each within eventsSlack).
//   - the server's evidence naming a benchseal id of the step that no
//     record carries FAILs (a record removed); ids only the server knows
//     are a WARN (other traffic, or ids the server did not return).
//
// Where a target has no such evidence the check says "not observed" and
// how to provide it.

// eventsSlack is what a server's time for a request may exceed the
// client's by: 2 ms for the two clocks' reading edges plus 1 % for their
// rates (vLLM times requests on time.time(), which NTP may slew).
func eventsSlack(client float64) float64 { return 0.002 + 0.01*client }

// KindEventsNotObserved: a target's run collected no per-request server
// evidence (vLLM's OpenTelemetry spans, SGLang-Omni's request-profiler
// events), so the records are not held to the server's own account.
const KindEventsNotObserved Kind = "events-not-observed"

// whatEvents names the evidence a run can collect.
const whatEvents = "vLLM's OpenTelemetry spans or SGLang-Omni's request-profiler events were not collected"

// checkEvents is check CheckEvents.
func checkEvents(rep *Report, ev *evidence) {
	c := rep.Check(CheckEvents)
	var no notObserved
	spans := map[string][]serverevents.Span{} // by target, decoded once
	bad := map[string]bool{}
	steps, witnessed, joined, requests := 0, 0, 0, 0
	var byCount []string // steps held by count only: "<step>: N server requests for M successes"
	without := map[string]bool{}
	for _, k := range schedule(ev.run) {
		recs := ev.records[k.file()]
		if !slices.ContainsFunc(recs, func(r schemas.Record) bool { return r.Phase == schemas.PhaseMeasure }) {
			continue
		}
		steps++
		name := schemas.StagesPath(k.target, k.concurrency, k.repeat)
		if !ev.f.has(name) {
			without[k.target] = true
			continue
		}
		witnessed++
		b, err := ev.f.read(name)
		if err != nil {
			c.failf(name, err, "%s: cannot be read: %v", k, err)
			continue
		}
		lines, err := decodeStages(b)
		if err != nil {
			c.failf(name, err, "%s: %v", k, err)
			continue
		}
		// Re-derive the file from the sealed raw evidence.
		var derived []schemas.RequestStages
		evDir := path.Dir(schemas.ProfilerEventsPath(k.target, k.concurrency, k.repeat, "x")) + "/"
		var evFiles []string
		for _, n := range ev.f.names {
			if strings.HasPrefix(n, evDir) && schemas.IsServerEvents(n) {
				evFiles = append(evFiles, n)
			}
		}
		if len(evFiles) > 0 {
			var all []serverevents.Event
			for _, n := range evFiles {
				eb, err := ev.f.read(n)
				if err == nil {
					var es []serverevents.Event
					es, err = serverevents.ParseEvents(bytes.NewReader(eb))
					all = append(all, es...)
				}
				if err != nil {
					c.failf(n, err, "%s: the server's event file does not decode: %v", k, err)
				}
			}
			st := serverevents.Step{Target: k.target, Concurrency: k.concurrency, Repeat: k.repeat, Attempt: keptAttempt(ev, k)}
			runID := serverevents.RunID(ev.run.StartedAt, st)
			if len(serverevents.OfRun(all, runID)) == 0 && len(serverevents.OfRun(all, serverevents.LegacyRunID(st))) > 0 {
				runID = serverevents.LegacyRunID(st) // sealed before run ids were unique to the run
			}
			if other := len(all) - len(serverevents.OfRun(all, runID)); other > 0 {
				c.warnf(evFiles[0], "%s: %d of the server's %d sealed events belong to another profiling session than this run's (run_id %s) and are not counted", k, other, len(all), runID)
			}
			derived = serverevents.StepEvents(all, runID, recs)
		} else {
			if _, done := spans[k.target]; !done {
				spans[k.target] = []serverevents.Span{}
				for _, n := range ev.f.glob("servers/" + k.target + "/otlp/*") {
					if !schemas.IsServerEvents(n) {
						continue
					}
					ob, err := ev.f.read(n)
					var sp []serverevents.Span
					if err == nil {
						sp, err = serverevents.DecodeOTLP(ob)
					}
					if err != nil {
						c.failf(n, err, "%s: the server's OTLP export does not decode: %v", k.target, err)
						bad[k.target] = true
						continue
					}
					spans[k.target] = append(spans[k.target], sp...)
				}
			}
			derived = serverevents.StepSpans(spans[k.target], recs)
		}
		if d := diffStages(lines, derived); d != "" && !bad[k.target] {
			c.failf(name, nil, "%s: the joined stage times do not follow from the server's sealed evidence and the records (%s): the stages file or the records were edited", k, d)
		}

		byID := map[string]schemas.RequestStages{}
		var unjoined []schemas.RequestStages
		for _, l := range lines {
			if l.RequestID == "" {
				unjoined = append(unjoined, l)
				continue
			}
			byID[l.RequestID] = l
		}
		ids := map[string]bool{}
		var margins, clients []float64 // successful joined requests: client latency less the server's e2e
		var witnessed []joinedTime
		measured, succeeded, seenMeasured, missing := 0, 0, 0, 0
		var firstMissing string
		for _, r := range recs {
			ids[r.RequestID] = true
			if r.Phase != schemas.PhaseMeasure {
				continue
			}
			measured++
			l, ok := byID[r.RequestID]
			if ok {
				seenMeasured++
				requests++
				if r.OK {
					// A failed request's client may have stopped
					// waiting (a cut or failed stream, a timeout)
					// while the server went on: only a success's
					// latency bounds the server's times.
					checkStageTimes(c, name, k, r, l)
					if l.E2ES != nil {
						client := float64(r.EndNs-r.StartNs) / 1e9
						margins, clients = append(margins, client-*l.E2ES), append(clients, client)
						witnessed = append(witnessed, joinedTime{r, *l.E2ES, l.Parts})
					}
				}
			}
			if !r.OK {
				continue
			}
			succeeded++
			if !ok {
				missing++
				if firstMissing == "" {
					firstMissing = r.RequestID
				}
			}
		}
		checkSteadyWitness(c, ev, name, k, recs, witnessed)
		checkMedianMargin(c, name, k, margins, clients)
		if len(byID) > 0 {
			joined++
			if missing > 0 {
				c.failf(name, nil, "%s: %d of %d measured requests that the records say succeeded have no account from the server (first: %s): records of requests the server never saw",
					k, missing, succeeded, firstMissing)
			}
		} else if len(unjoined) < succeeded {
			c.failf(name, nil, "%s: the server saw %d requests while the step was measured, yet the records say %d succeeded: records of requests the server never saw",
				k, len(unjoined), succeeded)
		} else {
			byCount = append(byCount, fmt.Sprintf("%s: %d server requests for %d successes", k, len(unjoined), succeeded))
			if len(unjoined) > measured {
				c.warnf(name, "%s: the server counted %d requests while the step was measured, %d more than the %d measured requests the records hold: other traffic reached the server (the count binds only from below)",
					k, len(unjoined), len(unjoined)-measured, measured)
			}
		}
		var foreign, removed []string
		for _, l := range unjoined {
			if b := serverevents.BenchID(l.ServerRequestID); b != "" && !ids[b] {
				removed = append(removed, b)
			} else if len(byID) > 0 {
				foreign = append(foreign, l.ServerRequestID)
			}
		}
		if len(removed) > 0 {
			c.failf(name, nil, "%s: the server served %d requests with this step's ids that no record carries (first: %s): records were removed", k, len(removed), removed[0])
		}
		if len(foreign) > 0 {
			c.warnf(name, "%s: the server's evidence names %d requests no record carries (first: %s): other traffic reached the server", k, len(foreign), foreign[0])
		}
	}
	var targets []string
	for t := range without {
		targets = append(targets, t)
	}
	slices.Sort(targets)
	// Evidence the run says it collected is required: its absence is
	// evidence removed, not evidence never collected.
	for _, t := range targets {
		for _, e := range ev.run.Events {
			if e.Kind == schemas.EventOTLPCollected && e.Target == t {
				c.failf(schemas.ServerPath(t, "otlp/"), nil, "%s: run.json says the server's OpenTelemetry spans were collected, but steps of it have no per-request account (servers/%s/stages/): the server's evidence was removed after the run", t, t)
				break
			}
		}
	}
	if len(byCount) > 0 {
		no.add("the server's per-request times of the %d step(s) held by count only: its request ids are not the records' (SGLang-Omni returns its id only on streamed answers: run with --stream)", len(byCount))
	}
	if len(targets) > 0 {
		no.add("%s: no per-request server evidence (%s)", strings.Join(targets, ", "), whatEvents)
	}
	var offsets map[string]float64
	if witnessed > 0 {
		offsets = checkEvidenceIDs(c, ev, spans)
	}
	if witnessed == 0 && c.Status != Fail {
		c.Status = Skip
		for _, t := range targets {
			c.add(Finding{Status: Skip, Kind: KindEventsNotObserved, Path: schemas.ServerPath(t, ""),
				Reason: fmt.Sprintf("%s: no per-request server evidence: %s", t, whatEvents)})
		}
		if steps == 0 {
			c.Summary = "not observed: no step with measured records"
		} else {
			c.Summary = "not observed: " + strings.Join(no, "; ")
		}
		return
	}
	if c.Status == Fail {
		c.Summary = eventsFailSummary(c)
	} else {
		var held []string
		if joined > 0 {
			held = append(held, fmt.Sprintf("%d joined by request id (%d requests): the server saw every successful measured request and none of its times is longer than the client's latency", joined, requests))
		}
		if len(byCount) > 0 {
			names := byCount
			if len(names) > 4 {
				names = append(names[:4:4], fmt.Sprintf("%d more", len(byCount)-4))
			}
			held = append(held, fmt.Sprintf("%d by count only, counts compared, times not: the server counted at least as many requests as succeeded (%s)", len(byCount), strings.Join(names, "; ")))
		}
		if len(offsets) > 0 {
			held = append(held, "server clock "+offsetsSummary(ev.run, offsets))
		}
		c.Summary = fmt.Sprintf("%d of %d steps: %s", witnessed, steps, strings.Join(held, "; "))
	}
	c.Summary = no.summary(c, c.Summary)
}

// medianMarginSlack bounds how far below 0 the median of a step's
// margins (client latency less the server's own end-to-end time for the
// same request) may lie. The server's interval for a request lies inside
// the client's (it arrives after the client sends and is finished before
// the client reads the last byte), so an honest margin is positive by the
// network and HTTP time; only the clocks' reading edges (100 µs: Python's
// time.time and the scheduler) and their rates (twice NTP's most slew,
// 500 ppm, of the median latency) can make it negative. Records shaved
// under the server's account by a millisecond each stay inside the
// per-request eventsSlack, which forgives one odd request, but move the
// median below this.
func medianMarginSlack(medianClient float64) float64 { return 100e-6 + 2*500e-6*medianClient }

// checkMedianMargin holds a step's successful joined requests, as a
// whole, to the server's account: the median of client latency less the
// server's e2e time must not be below -medianMarginSlack (FAIL: the
// records' latencies were lowered under the server's own times).
func checkMedianMargin(c *Check, name string, k stepKey, margins, clients []float64) {
	if len(margins) < 3 {
		return
	}
	m, l := verdict.Median(margins), verdict.Median(clients)
	if slack := medianMarginSlack(l); m < -slack {
		c.failf(name, nil, "%s: the median request's latency is %.3f ms shorter than the server's own end-to-end time for it (over %d requests; the clocks explain at most %.3f ms): the records' latencies were lowered under the server's account",
			k, -m*1e3, len(margins), slack*1e3)
	}
}

// steadyWitnessSlack is how far below SteadyMeanShare·C the server's
// account may put a step's mean in flight while its records put it at
// or above: 5 % of C.
const steadyWitnessSlack = 0.05

// joinedTime is a successful measured record joined to the server's e2e
// time for it, from parts pieces of evidence (more than one: a chunked
// request, whose e2e is its longest chunk's).
type joinedTime struct {
	r     schemas.Record
	e2e   float64
	parts int
}

// checkSteadyWitness holds a closed-loop step's steady state (claims'
// mean in flight, Σ latency / window: what latencies lengthened at the
// ends of a window raise) to the server's own account of the same
// requests. A request's client latency is its server e2e plus the
// network and HTTP time it pays, about the same for every request; so
// each joined latency is held to its e2e plus twice the median overhead
// of the requests a closed loop cannot lengthen unseen (each worker's
// but its last) plus 5 ms, and what lies beyond is taken out of the
// mean.
// Where the records reach SteadyMeanShare·C and the mean so trimmed
// stays below it by more than steadyWitnessSlack·C, the records'
// latencies were lengthened beyond what the server did: FAIL (a level
// short of steady state made to read as steady, and its verdict with
// it). Chunked requests (their e2e is one chunk's) are not trimmed.
func checkSteadyWitness(c *Check, ev *evidence, name string, k stepKey, recs []schemas.Record, joined []joinedTime) {
	if ev.run.Protocol.Mode == schemas.ModeOpen || len(joined) < 3 || k.concurrency < 2 {
		return
	}
	mean, _, ok := claims.SteadyState(recs, k.concurrency)
	if !ok || mean < claims.SteadyMeanShare*float64(k.concurrency) {
		return
	}
	first, last := int64(-1), int64(0)
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure && r.EndNs >= r.StartNs {
			if first < 0 || r.StartNs < first {
				first = r.StartNs
			}
			last = max(last, r.EndNs)
		}
	}
	window := float64(last-first) / 1e9
	// The overhead is read off the requests a closed loop cannot
	// lengthen unseen: each worker's but its last (a longer one would
	// have moved its next start).
	lastOf := map[int]int64{}
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure {
			lastOf[r.Worker] = max(lastOf[r.Worker], r.StartNs)
		}
	}
	var overheads []float64
	for _, j := range joined {
		if j.parts <= 1 && j.r.StartNs != lastOf[j.r.Worker] {
			overheads = append(overheads, float64(j.r.EndNs-j.r.StartNs)/1e9-j.e2e)
		}
	}
	if len(overheads) == 0 || window <= 0 {
		return
	}
	allow := 2*max(verdict.Median(overheads), 0) + 0.005
	excess := 0.0
	for _, j := range joined {
		if j.parts <= 1 {
			excess += max(0, float64(j.r.EndNs-j.r.StartNs)/1e9-j.e2e-allow)
		}
	}
	trimmed := mean - excess/window
	if bound := (claims.SteadyMeanShare - steadyWitnessSlack) * float64(k.concurrency); trimmed < bound {
		c.failf(name, nil, "%s: the records put the step at steady state (mean %.1f of %d in flight), but the server's own times for the same requests put it at %.1f (the records' latencies exceed the server's e2e by %.3f s in all beyond the %.1f ms each that the step's median overhead explains): the records' latencies were lengthened beyond what the server did",
			k, mean, k.concurrency, trimmed, excess, allow*1e3)
	}
}

// checkStageTimes holds one request's server times to its client latency.
//
// The record's first byte (a stream's first text or audio, a whole
// answer's headers) comes after the server's first token: the request
// arrived after the client sent it, and nothing is sent before it is
// made. A first byte earlier than the server's time to first token by
// more than eventsSlack was moved (FAIL).
func checkStageTimes(c *Check, name string, k stepKey, r schemas.Record, l schemas.RequestStages) {
	client := float64(r.EndNs-r.StartNs) / 1e9
	if l.TTFTS != nil && r.FirstByteNs > r.StartNs {
		if first := float64(r.FirstByteNs-r.StartNs) / 1e9; first+eventsSlack(first) < *l.TTFTS {
			c.failf(name, nil, "%s: request %s: its first byte came %.6f s after it was sent, before the server's own first token (%.6f s after it arrived): the record's first byte was moved earlier than the server made it",
				k, r.RequestID, first, *l.TTFTS)
			return
		}
	}
	for _, t := range []struct {
		what string
		v    *float64
	}{{"end to end", l.E2ES}, {"queue", l.QueueS}, {"prefill", l.PrefillS}, {"decode", l.DecodeS}, {"inference", l.InferenceS}, {"first token", l.TTFTS}} {
		if t.v != nil && *t.v > client+eventsSlack(client) {
			c.failf(name, nil, "%s: request %s: the server's %s time %.6f s is longer than the %.6f s the record says the client waited: the record's latency is shorter than the server's own",
				k, r.RequestID, t.what, *t.v, client)
			return
		}
	}
}

// decodeStages reads a stages file.
func decodeStages(b []byte) ([]schemas.RequestStages, error) {
	var out []schemas.RequestStages
	for i, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l schemas.RequestStages
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d does not decode: %v", i+1, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// diffStages says where two stage lists first differ, "" when equal.
func diffStages(got, want []schemas.RequestStages) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d lines, the evidence gives %d", len(got), len(want))
	}
	for i := range got {
		a, _ := json.Marshal(got[i])
		b, _ := json.Marshal(want[i])
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d, server id %s", i+1, got[i].ServerRequestID)
		}
	}
	return ""
}

// offsetsSummary names each target's fitted clock offset (the median of
// its spans' starts less its records' starts), loopback targets marked.
func offsetsSummary(run *schemas.Run, offsets map[string]float64) string {
	var parts []string
	for _, t := range run.Targets {
		d, ok := offsets[t.Name]
		if !ok {
			continue
		}
		s := fmt.Sprintf("%s %+.1f ms", t.Name, d*1e3)
		if loopback(run, t.Name) {
			s += " (loopback: the client's clock)"
		}
		parts = append(parts, s)
	}
	return "offsets from the client's: " + strings.Join(parts, ", ")
}
