package verify

// Request ids (issue 25): a record's id is a function of run.json and the
// record itself, so an id swapped between records, or a server's account
// of a request no record carries, contradicts the bundle.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// idPrefix is the part of benchseal's X-Request-Id that names the run's
// seed and the target: "bs-" + the first 16 hex digits of SHA-256(seed as
// 8 little-endian bytes, target name) + "-" (internal/bench.RequestID,
// which verify may not import; TestCorpusBase holds the two equal: its
// records carry the runner's ids, and check 7 passes).
func idPrefix(seed uint64, target string) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(target))
	return "bs-" + hex.EncodeToString(h.Sum(nil)[:8]) + "-"
}

// wantID appends to buf the id the runner gives a record: its step's
// level, repeat and seq after the target's prefix; a probe's requests
// are numbered as repeat 0 of concurrency 1 (internal/bench, probe.go), so
// that they never share an id with a step's.
func wantID(buf []byte, prefix string, r *schemas.Record) []byte {
	c, rp := r.Concurrency, r.Repeat
	if r.Phase == schemas.PhaseProbe {
		c, rp = 1, 0
	}
	buf = append(buf[:0], prefix...)
	buf = append(buf, 'c')
	buf = strconv.AppendInt(buf, int64(c), 10)
	buf = append(buf, "-r"...)
	buf = strconv.AppendInt(buf, int64(rp), 10)
	buf = append(buf, "-s"...)
	buf = strconv.AppendInt(buf, int64(r.Seq), 10)
	if r.Attempt > 1 { // a re-measured attempt's (attempts.go)
		buf = append(buf, "-a"...)
		buf = strconv.AppendInt(buf, int64(r.Attempt), 10)
	}
	return buf
}

// checkRecordIDs is check 7's: every record's request_id is its own
// <prefix>-c<C>-r<R>-s<seq>. A record that carries another's id (a
// warm-up's status and text swapped onto a measured request, with the
// ids swapped too so that the server's account follows) says which
// request it was. A record without an id (a run made before ids) is not
// held.
func checkRecordIDs(c *Check, ev *evidence) {
	var buf []byte
	bad := 0
	var first string
	for _, f := range append(slices.Clone(ev.recFiles), ev.attemptFiles...) {
		recs := ev.records[f]
		if schemas.IsAttemptRecords(f) {
			recs = ev.attemptRecs[f]
		}
		if len(recs) == 0 {
			continue
		}
		prefix := idPrefix(ev.run.Seed, recs[0].Target)
		for i := range recs {
			r := &recs[i]
			if r.RequestID == "" {
				continue
			}
			if r.Target != recs[0].Target {
				prefix = idPrefix(ev.run.Seed, r.Target)
			}
			buf = wantID(buf, prefix, r)
			if string(buf) == r.RequestID {
				continue
			}
			bad++
			if bad == 1 {
				first = fmt.Sprintf("%s line %d", f, i+1)
			}
			if bad <= 3 {
				c.add(Finding{Status: Fail, Path: f, Line: i + 1, Reason: fmt.Sprintf(
					"request_id %s, but the runner gives this record (%s, seq %d of c=%d repeat %d) the id %s: ids were moved between records",
					r.RequestID, r.Phase, r.Seq, r.Concurrency, r.Repeat, buf)})
			}
		}
	}
	if bad > 3 {
		c.failf("", nil, "%d records carry another record's request_id (first: %s)", bad, first)
	}
}

// spanSkew bounds how far a request's arrival on the server (a span's
// start, on the server's wall clock) may sit outside the client's
// interval for it [start, end], after one clock offset per target: the
// two clocks' reading edges and rates, as eventsSlack, plus a drift of
// maxDrift over the time between two requests (NTP slews a clock by at
// most 500 ppm).
const maxDrift = 500e-6

// checkEvidenceIDs is check 10's over the whole run: every benchseal id of
// the target's prefix in its sealed OTLP exports belongs to one of its
// records (a step's or its probe's); and the joined spans' starts fit one
// clock offset. spans holds each target's decoded spans (checkEvents
// decodes them once); a target without any is not held here.
//
// The offset: vLLM starts a request's span at its arrival_time
// (vllm/v1/engine/output_processor.py do_tracing @d0782260, start_time =
// metrics.arrival_time), which lies between the client's send and its
// last byte, so a span started at S for a record sent at T and answered
// after L says the server's clock is ahead of the client's by an offset
// in [S-T-L, S-T]. Every successful joined record of a target must agree
// on one offset, allowed to drift by maxDrift with time and widened by
// eventsSlack(L) on each side; the estimate is the median of S-T. A
// record carrying a warm-up's id is joined to the warm-up's span,
// seconds away from its own start, and fits no offset the others allow.
//
// A target on loopback runs on the client's own clock: its offset is 0,
// and every interval [lo, hi] must hold it, within loopbackSkew. Records
// whose times were moved (run.json's started_at shifted, every offset
// scaled) agree with each other on a nonzero offset, which the drift
// rule alone accepts; the same clock does not.
//
// It returns each target's estimated offset (the median of S-T), for the
// summary.
func checkEvidenceIDs(c *Check, ev *evidence, spans map[string][]serverevents.Span) map[string]float64 {
	offsets := map[string]float64{}
	targets := make([]string, 0, len(spans))
	for t := range spans {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	anchor := ev.run.StartedAt.UnixNano()
	for _, t := range targets {
		prefix := idPrefix(ev.run.Seed, t)
		recs := map[string]*schemas.Record{}
		for _, f := range append(slices.Clone(ev.recFiles), ev.attemptFiles...) {
			if !strings.HasPrefix(f, "records/"+t+"/") {
				continue
			}
			rs := ev.records[f]
			if schemas.IsAttemptRecords(f) {
				rs = ev.attemptRecs[f] // a discarded attempt's requests reached the server too
			}
			for i := range rs {
				if r := &rs[i]; r.RequestID != "" {
					recs[r.RequestID] = r
				}
			}
		}
		if len(recs) == 0 {
			continue
		}
		var stray []string
		strayN := 0
		var fits []offsetFit
		for _, s := range spans[t] {
			if s.BenchID == "" || !strings.HasPrefix(s.BenchID, prefix) {
				continue
			}
			r, ok := recs[s.BenchID]
			if !ok {
				strayN++
				if len(stray) < 3 {
					stray = append(stray, strings.TrimPrefix(s.BenchID, prefix))
				}
				continue
			}
			if r.OK && s.StartUnixNs > 0 {
				start := anchor + r.StartNs
				l := float64(r.EndNs-r.StartNs) / 1e9
				d := float64(s.StartUnixNs-start) / 1e9
				fits = append(fits, offsetFit{at: float64(r.StartNs) / 1e9, lo: d - l - eventsSlack(l), hi: d + eventsSlack(l), d: d, id: r.RequestID})
			}
		}
		where := schemas.ServerPath(t, "otlp/")
		if strayN > 0 {
			status := Fail
			why := "steps or records were removed after the run"
			if !ev.run.Complete {
				status, why = Warn, "the run did not complete: requests in flight when it stopped may have no record"
			}
			c.add(Finding{Status: status, Path: where, Reason: fmt.Sprintf(
				"%s: the server's sealed spans name %d request(s) with %s's ids that no record of a scheduled step or probe carries (first: %s): %s",
				t, strayN, t, strings.Join(stray, ", "), why)})
		}
		if len(fits) > 0 {
			offsets[t] = medianD(fits)
		}
		if bad, est, ok := oneOffset(fits); !ok {
			c.failf(where, nil, "%s: request %s's span starts %+.3f s from its record's start, while the target's other requests put the server's clock %+.3f s from the client's (median): no one clock offset fits its spans, so a record was joined to another request's span (ids moved between records)",
				t, bad.id, bad.d, est)
		} else if loopback(ev.run, t) {
			for _, f := range fits {
				if f.lo > loopbackSkew || f.hi < -loopbackSkew {
					c.failf(where, nil, "%s: request %s's span starts %+.3f s from its record's start (the server's clock %+.3f s from the client's, median), but %s is on loopback, on the client's own clock: its offset is 0 within the time the request took (+%.0f ms), so the records' times were moved",
						t, f.id, f.d, offsets[t], t, loopbackSkew*1e3)
					break
				}
			}
		}
	}
	return offsets
}

// loopbackSkew is how far from 0 a loopback target's offset interval may
// lie: the intervals already allow each request's reading edges
// (eventsSlack), and the clock is one, so only rounding is left.
const loopbackSkew = 0.001

// loopback reports whether target t's URL is on this host's loopback
// (127.0.0.0/8, ::1, localhost), so that its clock is the client's.
func loopback(run *schemas.Run, t string) bool {
	for _, tg := range run.Targets {
		if tg.Name != t {
			continue
		}
		u, err := url.Parse(tg.URL)
		if err != nil {
			return false
		}
		h := u.Hostname()
		if h == "localhost" {
			return true
		}
		ip := net.ParseIP(h)
		return ip != nil && ip.IsLoopback()
	}
	return false
}

// medianD is the median of the fits' span-minus-record starts.
func medianD(fits []offsetFit) float64 {
	ds := make([]float64, len(fits))
	for i, f := range fits {
		ds[i] = f.d
	}
	return verdict.Median(ds)
}

// offsetFit is one joined request's constraint on the clock offset: at
// (seconds into the run) the offset lies in [lo, hi]; d is span start
// minus record start.
type offsetFit struct {
	at, lo, hi, d float64
	id            string
}

// oneOffset reports whether one offset, drifting by at most maxDrift, fits
// every constraint. Pairwise agreement suffices for a drift-bounded
// offset (take f(t) = max_i lo_i - maxDrift|t-t_i|), and pairs are swept
// in time order: for i before j, lo_j - hi_i and lo_i - hi_j must be at
// most maxDrift (t_j - t_i). When none fits, bad is the request farthest
// from the median estimate.
func oneOffset(fits []offsetFit) (bad offsetFit, est float64, ok bool) {
	if len(fits) < 2 {
		return offsetFit{}, 0, true
	}
	slices.SortFunc(fits, func(a, b offsetFit) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	ok = true
	minHi, maxLo := fits[0].hi-maxDrift*fits[0].at, fits[0].lo+maxDrift*fits[0].at
	for _, f := range fits[1:] {
		if f.lo-maxDrift*f.at > minHi || maxLo > f.hi+maxDrift*f.at {
			ok = false
			break
		}
		minHi = min(minHi, f.hi-maxDrift*f.at)
		maxLo = max(maxLo, f.lo+maxDrift*f.at)
	}
	if ok {
		return offsetFit{}, 0, true
	}
	ds := make([]float64, len(fits))
	for i, f := range fits {
		ds[i] = f.d
	}
	slices.Sort(ds)
	est = ds[len(ds)/2]
	far := -1.0
	for _, f := range fits {
		// How far the median lies outside this request's interval.
		out := max(f.lo-est, est-f.hi, 0)
		if out > far {
			far, bad = out, f
		}
	}
	return bad, est, false
}

// eventsFailSummary is check 10's summary when it fails: the steps whose
// evidence contradicts their records, and the targets whose spans do
// over the whole run (checkEvidenceIDs).
func eventsFailSummary(c *Check) string {
	steps, targets := map[string]bool{}, map[string]bool{}
	for _, f := range c.Findings {
		if f.Status != Fail {
			continue
		}
		who, _, _ := strings.Cut(f.Reason, ":")
		if strings.HasSuffix(f.Path, "/otlp/") {
			targets[who] = true
		} else {
			steps[who] = true
		}
	}
	var parts []string
	if len(steps) > 0 {
		parts = append(parts, fmt.Sprintf("the records of %d step(s)", len(steps)))
	}
	if len(targets) > 0 {
		parts = append(parts, fmt.Sprintf("the spans of %d target(s) over the run", len(targets)))
	}
	return "the server's per-request evidence contradicts " + strings.Join(parts, " and ")
}
