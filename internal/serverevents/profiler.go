package serverevents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// SGLang-Omni's request profiler (sglang_omni/serve/launcher.py @03c8f159).
const (
	StartProfilePath = "/start_request_profile"
	StopProfilePath  = "/stop_request_profile"
)

// Event names of SGLang-Omni's request profiler that stage times are made
// of (see the package doc).
const (
	EvAdmission    = "request_admission"
	EvTerminal     = "terminal_response"
	EvBuildStart   = "scheduler_request_build_start"
	EvBuildEnd     = "scheduler_request_build_end"
	EvQueueEnter   = "scheduler_queue_enter"
	EvPrefillStart = "scheduler_prefill_start"
	EvFirstEmit    = "scheduler_first_emit"
	EvStageDone    = "stage_complete"
)

// Event is one line of an events_<stage>_<pid>.jsonl file.
type Event struct {
	RequestID   string         `json:"request_id"`
	Stage       string         `json:"stage"`
	EventName   string         `json:"event_name"`
	TimestampNs int64          `json:"timestamp_ns"`
	RunID       *string        `json:"run_id"`
	PID         *int           `json:"pid"`
	Metadata    map[string]any `json:"metadata"`
}

// EventFile matches the profiler's file names (event_recorder.py @30e3cee2).
var EventFile = regexp.MustCompile(`^events_[A-Za-z0-9_.-]+_[0-9]+\.jsonl$`)

// ParseEvents reads an event file. A line that does not decode is an
// error naming its line number, except a last line cut short (the process
// was still writing).
func ParseEvents(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []Event
	var pending error
	for n := 1; sc.Scan(); n++ {
		if pending != nil {
			return nil, pending
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.RequestID == "" || e.EventName == "" {
			if err == nil {
				err = fmt.Errorf("no request_id or event_name")
			}
			pending = fmt.Errorf("line %d: %w", n, err)
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// parentID folds a chunk of a long transcription into its request:
// "<id>-chunk-<n>[-retry]" -> "<id>" (transcriptions.py @0ac0a86e).
var chunkSuffix = regexp.MustCompile(`-chunk-[0-9]+(-retry)?$`)

func parentID(id string) string { return chunkSuffix.ReplaceAllString(id, "") }

// EventStages makes one line per request id of events (chunks folded into
// their request), in id order. Intervals are taken within one request on
// the server's clock: e2e from the coordinator's request_admission to its
// terminal_response; queue, prefill, decode and build from the scheduler
// events of one stage (the first, by name, that has scheduler_queue_enter).
// An interval whose ends are missing, or that runs backwards, is nil.
func EventStages(events []Event) []schemas.RequestStages {
	type key struct{ id, stage, name string }
	first := map[key]int64{}
	last := map[key]int64{}
	parts := map[string]int{}
	stages := map[string][]string{}
	for _, e := range events {
		id := parentID(e.RequestID)
		k := key{id, e.Stage, e.EventName}
		if t, ok := first[k]; !ok || e.TimestampNs < t {
			first[k] = e.TimestampNs
		}
		if t, ok := last[k]; !ok || e.TimestampNs > t {
			last[k] = e.TimestampNs
		}
		parts[id]++
		if e.EventName == EvQueueEnter && !slices.Contains(stages[id], e.Stage) {
			stages[id] = append(stages[id], e.Stage)
		}
	}
	ids := make([]string, 0, len(parts))
	for id := range parts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]schemas.RequestStages, 0, len(ids))
	for _, id := range ids {
		l := schemas.RequestStages{ServerRequestID: id, Source: schemas.SourceProfiler, Parts: parts[id]}
		span := func(stage, a, b string, endLast bool) *float64 {
			ta, ok1 := first[key{id, stage, a}]
			tb, ok2 := first[key{id, stage, b}]
			if endLast {
				tb, ok2 = last[key{id, stage, b}]
			}
			d := tb - ta                          // exact in int64; float64 timestamps would lose the ns
			if !ok1 || !ok2 || tb < ta || d < 0 { // d < 0: the difference overflowed
				return nil
			}
			s := float64(d) / 1e9
			return &s
		}
		l.E2ES = span("coordinator", EvAdmission, EvTerminal, true)
		if st := stages[id]; len(st) > 0 {
			slices.Sort(st)
			l.Stage = st[0]
			l.QueueS = span(l.Stage, EvQueueEnter, EvPrefillStart, false)
			l.PrefillS = span(l.Stage, EvPrefillStart, EvFirstEmit, false)
			l.DecodeS = span(l.Stage, EvFirstEmit, EvStageDone, true)
			l.BuildS = span(l.Stage, EvBuildStart, EvBuildEnd, false)
		}
		out = append(out, l)
	}
	return out
}

// Profiler drives SGLang-Omni's request profiler of one server.
type Profiler struct {
	URL    string // the server's base URL
	Header http.Header
	Client *http.Client
}

// ProfileError is a profiler endpoint that did not answer 200.
type ProfileError struct {
	Path   string
	Status int
	Body   string
}

func (e *ProfileError) Error() string {
	return fmt.Sprintf("%s answered %d: %s", e.Path, e.Status, e.Body)
}

// Start asks the server to write request events of runID into dir (a
// path as the server sees it).
func (p *Profiler) Start(ctx context.Context, runID, dir string) error {
	return p.post(ctx, StartProfilePath, map[string]string{"run_id": runID, "event_dir": dir})
}

// Stop ends runID's event recording.
func (p *Profiler) Stop(ctx context.Context, runID string) error {
	return p.post(ctx, StopProfilePath, map[string]string{"run_id": runID})
}

func (p *Profiler) post(ctx context.Context, path string, body any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(p.URL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	for k, v := range p.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return &ProfileError{Path: path, Status: resp.StatusCode, Body: strings.TrimSpace(string(msg))}
	}
	return nil
}
