package serverevents

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// StepPrefix is what every benchseal request id of the step of recs starts
// with ("bs-<16 hex>-c<C>-r<R>-s"), "" when no record carries an id.
func StepPrefix(recs []schemas.Record) string {
	for _, r := range recs {
		if i := strings.LastIndex(r.RequestID, "-s"); i > 0 && strings.HasPrefix(r.RequestID, "bs-") {
			return r.RequestID[:i+2]
		}
	}
	return ""
}

// StepSpans derives a step's lines from request spans: those whose
// benchseal id starts with the step's prefix, several spans of one request
// (vLLM's chunks of long audio) merged into one line whose only time is
// the longest e2e, joined to recs. It returns the lines sorted by server
// id, or nil when no record of recs carries a request id.
func StepSpans(spans []Span, recs []schemas.Record) []schemas.RequestStages {
	prefix := StepPrefix(recs)
	if prefix == "" {
		return nil
	}
	// A step measured again (internal/bench) sent each attempt under
	// the same prefix: only the records' attempt is the step's.
	attempt := recs[0].AttemptOf()
	var byID = map[string][]Span{}
	for _, s := range spans {
		if s.BenchID != "" && strings.HasPrefix(s.BenchID, prefix) && idAttempt(s.BenchID) == attempt {
			byID[s.BenchID] = append(byID[s.BenchID], s)
		}
	}
	var lines []schemas.RequestStages
	for _, group := range byID {
		l := group[0].Stages
		if len(group) > 1 {
			l = schemas.RequestStages{ServerRequestID: group[0].ServerID, Source: schemas.SourceOTLP, Parts: len(group)}
			for _, s := range group {
				if e := s.Stages.E2ES; e != nil && (l.E2ES == nil || *e > *l.E2ES) {
					v := *e
					l.E2ES = &v
				}
			}
		}
		lines = append(lines, l)
	}
	return Join(recs, lines)
}

// idAttempt is the attempt a benchseal request id names: k of a trailing
// "-a<k>", else 1.
func idAttempt(id string) int {
	m := attemptSuffix.FindStringSubmatch(id)
	if m == nil {
		return 1
	}
	k, err := strconv.Atoi(m[1])
	if err != nil || k < 1 {
		return 1
	}
	return k
}

var attemptSuffix = regexp.MustCompile(`-s[0-9]+-a([0-9]+)$`)

// StepEvents derives a step's lines from the profiler events of session
// runID (an event of another run_id is not the step's: an earlier run's
// file left in the same directory), joined to recs.
func StepEvents(events []Event, runID string, recs []schemas.Record) []schemas.RequestStages {
	return Join(recs, EventStages(OfRun(events, runID)))
}

// OfRun keeps the events of profiling session runID. SGLang-Omni stamps
// every event with the run_id its /start_request_profile was given
// (event_recorder.py @30e3cee2 RequestEvent.run_id) and appends to
// events_<stage>_<pid>.jsonl: the run_id, not the file, tells sessions
// apart.
func OfRun(events []Event, runID string) []Event {
	var out []Event
	for _, e := range events {
		if e.RunID != nil && *e.RunID == runID {
			out = append(out, e)
		}
	}
	return out
}

// RunID is the run_id benchseal gives SGLang-Omni's request profiler for
// one measured phase: unique to the run (its started_at, to the
// nanosecond, as run.json keeps it) and the step, so that no event of an
// earlier run, or of another step, can pass for this one's.
//
// A re-measured attempt k > 1 (Step.Attempt) appends "-a<k>": its events
// are its own session's.
func RunID(started time.Time, st Step) string {
	id := fmt.Sprintf("benchseal-%s-%s-c%d-r%d", started.UTC().Format("20060102T150405.000000000Z"), st.Target, st.Concurrency, st.Repeat)
	if st.Attempt > 1 {
		id += fmt.Sprintf("-a%d", st.Attempt)
	}
	return id
}

// LegacyRunID is the run_id runs sealed before RunID used (not unique to
// the run); verify accepts it where no event carries RunID.
func LegacyRunID(st Step) string {
	return fmt.Sprintf("benchseal-%s-c%d-r%d", st.Target, st.Concurrency, st.Repeat)
}

// Join sets each line's RequestID, Concurrency and Repeat from the record
// whose request id or server request id it names (directly, or as the
// benchseal id inside the server's id), and sorts the lines by server id.
// A line no record names keeps RequestID "" and takes the step's
// concurrency and repeat from recs.
func Join(recs []schemas.Record, lines []schemas.RequestStages) []schemas.RequestStages {
	byKey := map[string]*schemas.Record{}
	for i := range recs {
		r := &recs[i]
		for _, k := range []string{r.RequestID, r.ServerRequestID} {
			if k != "" {
				byKey[k] = r
			}
		}
	}
	for i := range lines {
		l := &lines[i]
		r := byKey[l.ServerRequestID]
		if r == nil {
			if b := BenchID(l.ServerRequestID); b != "" {
				r = byKey[b]
			}
		}
		if r != nil {
			l.RequestID, l.Concurrency, l.Repeat = r.RequestID, r.Concurrency, r.Repeat
		} else if len(recs) > 0 {
			l.Concurrency, l.Repeat = recs[0].Concurrency, recs[0].Repeat
		}
	}
	slices.SortFunc(lines, func(a, b schemas.RequestStages) int { return strings.Compare(a.ServerRequestID, b.ServerRequestID) })
	return lines
}
