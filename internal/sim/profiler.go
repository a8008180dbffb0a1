package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// profilerPersonas serve SGLang-Omni's request profiler.
var profilerPersonas = map[string]bool{PersonaSGLangOmni: true}

// profiler is SGLang-Omni's request profiler as the sglang-omni persona
// serves it (sglang_omni/serve/launcher.py @03c8f159, profiler/
// event_recorder.py @30e3cee2): POST /start_request_profile {"run_id",
// "event_dir"} opens events_<stage>_<pid>.jsonl in event_dir (default
// Config.ProfilerDir/<run_id>/events, as SGLANG_TORCH_PROFILER_DIR; 400
// without either) and answers {"run_id","event_dir"}; POST
// /stop_request_profile {"run_id"} closes them and answers {"run_id"}. A
// start with another run_id rotates the files. While active, every
// finished request appends its events: the coordinator's request_admission
// and terminal_response to events_coordinator_<pid>.jsonl, the "asr"
// stage's (qwen3_asr/config.py @0970348d: one stage named asr)
// scheduler_request_build_start/_end, scheduler_queue_enter,
// scheduler_prefill_start, scheduler_first_emit and stage_complete to
// events_asr_<pid>.jsonl. timestamp_ns is the wall clock in nanoseconds
// (time.time_ns(), the recorder's default).
type profiler struct {
	mu sync.Mutex
	// inflight counts requests answered while profiling was on whose
	// events are not written yet; stop waits for them (stopWait).
	inflight int
	runID    string
	dir      string
	files    map[string]*os.File // by stage
}

func (s *Server) profilerRoutes(m *http.ServeMux) {
	if !profilerPersonas[s.cfg.Persona] {
		return
	}
	type body struct {
		RunID    *string `json:"run_id"`
		EventDir *string `json:"event_dir"`
	}
	read := func(w http.ResponseWriter, r *http.Request) (body, bool) {
		var b body
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&b); err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{"type": "json_invalid", "loc": []any{"body"}, "msg": "JSON decode error"}}})
			return b, false
		}
		return b, true
	}
	m.HandleFunc("POST /start_request_profile", func(w http.ResponseWriter, r *http.Request) {
		b, ok := read(w, r)
		if !ok {
			return
		}
		runID := time.Now().UTC().Format("20060102-150405")
		if b.RunID != nil && *b.RunID != "" {
			runID = *b.RunID
		}
		var dir string
		switch {
		case b.EventDir != nil:
			dir = *b.EventDir
		case s.cfg.ProfilerDir != "":
			dir = filepath.Join(s.cfg.ProfilerDir, runID, "events")
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"detail": "event_dir is required when SGLANG_TORCH_PROFILER_DIR is not set"})
			return
		}
		if err := s.prof.start(runID, dir); err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"detail": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"run_id": runID, "event_dir": dir})
	})
	m.HandleFunc("POST /stop_request_profile", func(w http.ResponseWriter, r *http.Request) {
		b, ok := read(w, r)
		if !ok {
			return
		}
		id := ""
		if b.RunID != nil {
			id = *b.RunID
		}
		active := s.prof.stop(id)
		if id == "" {
			id = active
		}
		var out any = id
		if id == "" {
			out = nil
		}
		writeJSON(w, http.StatusOK, map[string]any{"run_id": out})
	})
}

func (p *profiler) start(runID, dir string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files != nil && p.runID == runID {
		return nil
	}
	p.closeLocked()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	files := map[string]*os.File{}
	for _, stage := range []string{"coordinator", "asr"} {
		f, err := os.OpenFile(filepath.Join(abs, fmt.Sprintf("events_%s_%d.jsonl", stage, os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return err
		}
		files[stage] = f
	}
	p.runID, p.dir, p.files = runID, abs, files
	return nil
}

// stopWait bounds how long a stop waits for the events of requests
// answered while profiling was on.
const stopWait = 2 * time.Second

// enter reports whether profiling is on, and if so counts a request in
// flight (leave ends it).
func (p *profiler) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files == nil {
		return false
	}
	p.inflight++
	return true
}

func (p *profiler) leave() {
	p.mu.Lock()
	p.inflight--
	p.mu.Unlock()
}

// stop closes the files of runID ("" any), once the requests in flight
// have written their events, and returns the run id that was active.
func (p *profiler) stop(runID string) string {
	p.mu.Lock()
	active := p.runID
	if p.files == nil || (runID != "" && runID != active) {
		p.mu.Unlock()
		return ""
	}
	for deadline := time.Now().Add(stopWait); p.inflight > 0 && time.Now().Before(deadline); {
		p.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		p.mu.Lock()
	}
	defer p.mu.Unlock()
	if p.runID == active {
		p.closeLocked()
	}
	return active
}

func (p *profiler) closeLocked() {
	for _, f := range p.files {
		f.Close()
	}
	p.files, p.runID, p.dir = nil, "", ""
}

// profileRequest writes one finished request's events when profiling is
// on (see profiler).
func (s *Server) profileRequest(id string, start, begin time.Time, prefill, service time.Duration) {
	p := &s.prof
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files == nil {
		return
	}
	end := begin.Add(service) // the last token: the answer's last byte leaves after it
	pid := os.Getpid()
	emit := func(stage, name string, t time.Time) {
		b, _ := json.Marshal(map[string]any{"request_id": id, "stage": stage, "event_name": name, "timestamp_ns": t.UnixNano(),
			"run_id": p.runID, "pid": pid, "metadata": map[string]any{}})
		p.files[stage].Write(append(b, '\n'))
	}
	emit("coordinator", "request_admission", start)
	emit("asr", "scheduler_request_build_start", start)
	emit("asr", "scheduler_request_build_end", start)
	emit("asr", "scheduler_queue_enter", start)
	emit("asr", "scheduler_prefill_start", begin)
	emit("asr", "scheduler_first_emit", begin.Add(prefill))
	emit("asr", "stage_complete", begin.Add(service))
	emit("coordinator", "terminal_response", end)
}
