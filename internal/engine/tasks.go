package engine

import (
	"cmp"
	"maps"
	"slices"
)

// TaskASR is the name of the audio transcription task (internal/task's
// ASR, run.json's protocol.task "asr").
const TaskASR = "asr"

// TaskRow is what an engine does for one task (a request kind,
// internal/task): the route it serves the task on, the shape of the
// task's streamed answers, and so what its per-route counters count.
// An engine without a row for a task is not known to serve it: its
// per-route counters are left out for that task's runs, never read as
// zero requests of another endpoint.
type TaskRow struct {
	Task   string       // protocol.task, e.g. TaskASR
	Route  string       // the endpoint path, also the value of Metrics.RouteLabel on per-route families
	Stream StreamEvents // the shape of a streamed answer (ASR: Stream.Events)
	Source string
	// Facts are what the task relies on of the engine for this task
	// (fields and defaults, stream shapes, caches and their keys, errors,
	// metrics), each with its source (tts.go).
	Facts []Fact
	// Unmetered, when not "", says why the engine has no /metrics for the
	// task (and where that was read): its counters and stage families are
	// left out of the task's runs, whatever it exposes for other tasks.
	Unmetered string
	// Shedding is the task's own refusal of an overload when it is not the
	// engine's (Engine.Shedding): SGLang-Omni's speech path answers 503
	// where its transcription path answers 500. Shed reads it too.
	Shedding *Shedding
	// Voices is where the engine lists the voices a request may name, nil
	// when it lists none (tts.go).
	Voices *VoiceList
}

// VoiceList is an engine's GET of its voices: {"voices": [names]}.
type VoiceList struct {
	Path string
	// Complete says the list holds every voice a request without a
	// reference clip may name (vLLM-Omni: the checkpoint's speakers and
	// the uploaded ones); false when voices it does not list may still
	// be served (SGLang-Omni lists "default" and uploaded voices, not a
	// CustomVoice checkpoint's speakers): a voice missing from it is not
	// a voice the engine lacks.
	Complete bool
	// Fold: the engine matches voices case-insensitively.
	Fold   bool
	Source string
}

// Task returns e's row for task, and false when it has none.
func (e *Engine) Task(task string) (TaskRow, bool) {
	for _, r := range e.Tasks {
		if r.Task == task {
			return r, true
		}
	}
	return TaskRow{}, false
}

// routeMatch is the label filter of e's per-route families for task: nil
// when e's families count every route alike (no RouteLabel), ok false
// when they are per route and e has no row for task, or its row for task
// is Unmetered.
func (e *Engine) routeMatch(task string, m map[string]string) (map[string]string, bool) {
	if r, ok := e.Task(task); ok && r.Unmetered != "" {
		return nil, false
	}
	if e.Metrics.RouteLabel == "" {
		return m, true
	}
	r, ok := e.Task(task)
	if !ok {
		return nil, false
	}
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	out[e.Metrics.RouteLabel] = r.Route
	return out, true
}

// RequestCountersFor are the request counters of the table for a run of
// task, in order of preference (the first present in both scrapes of a
// step is used), each with its Match: an engine whose families are per
// route (Metrics.RouteLabel) counts only its route for task, and
// contributes no counter when it has no row for task.
func RequestCountersFor(task string) []RequestCounter { return requestCountersFor(table, task) }

// StageFamiliesFor are the stage histograms of the table for a run of
// task, each family once, with the route filter of RequestCountersFor:
// a family only one engine exposes comes before one several share
// (vLLM-Omni exposes vLLM's families too, but its own pipeline e2e is the
// one that times what its user waited for); otherwise table order.
func StageFamiliesFor(task string) []StageFamily { return stageFamiliesFor(table, task) }

func requestCountersFor(rows []*Engine, task string) []RequestCounter {
	var out []RequestCounter
	seen := map[string]bool{}
	add := func(e *Engine, r *RequestCounter) {
		if r == nil || seen[r.Name] {
			return
		}
		m, ok := e.taskMatch(task, r.Task, r.Match)
		if !ok {
			return
		}
		seen[r.Name] = true
		c := *r
		c.Match = m
		out = append(out, c)
	}
	for _, e := range rows {
		add(e, e.Metrics.Requests)
	}
	for _, e := range rows {
		for _, r := range e.Metrics.OtherRequests {
			add(e, r)
		}
	}
	return out
}

// taskMatch is routeMatch for a family of one task (its Task set): read
// as is for that task's runs, never for another's.
func (e *Engine) taskMatch(task, only string, m map[string]string) (map[string]string, bool) {
	if only == "" {
		return e.routeMatch(task, m)
	}
	if only != task {
		return nil, false
	}
	if r, ok := e.Task(task); ok && r.Unmetered != "" {
		return nil, false
	}
	return m, true
}

func stageFamiliesFor(rows []*Engine, task string) []StageFamily {
	count := map[string]int{}
	var out []StageFamily
	for _, e := range rows {
		for _, f := range e.Metrics.Stages {
			m, ok := e.taskMatch(task, f.Task, f.Match)
			if !ok {
				continue
			}
			if count[f.Family]++; count[f.Family] == 1 {
				f.Match = m
				out = append(out, f)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b StageFamily) int { return cmp.Compare(min(count[a.Family], 2), min(count[b.Family], 2)) })
	return out
}
