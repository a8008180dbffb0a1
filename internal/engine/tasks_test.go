package engine

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestTaskRows: every engine serves ASR on the route its transcription
// facts name, streamed in its stream shape; and the ASR lists keep the
// route filter they had before it became a row field.
func TestTaskRows(t *testing.T) {
	for _, e := range All() {
		r, ok := e.Task(TaskASR)
		if !ok || r.Route != e.Transcription.Path || r.Stream != e.Stream.Events || r.Source == "" {
			t.Errorf("%s: ASR row %+v (ok %v), want route %s, stream %s", e.Name, r, ok, e.Transcription.Path, e.Stream.Events)
		}
		if _, ok := e.Task("tts-none"); ok {
			t.Errorf("%s: a row for a task it has none for", e.Name)
		}
	}
	route := map[string]string{"route": TranscriptionsPath}
	for _, rc := range RequestCounters {
		if want := rc.Engine == SGLangOmni && rc.Task == ""; maps.Equal(rc.Match, route) != want || (!want && rc.Match != nil) {
			t.Errorf("%s: Match %v", rc.Name, rc.Match)
		}
	}
	for _, f := range StageFamilies {
		if want := f.Family == "sglang_omni_http_request_duration_seconds"; maps.Equal(f.Match, route) != want || (!want && f.Match != nil) {
			t.Errorf("%s: Match %v", f.Family, f.Match)
		}
	}
}

// TestRouteFilterPerTask: another task's run reads a per-route engine's
// counters on that task's route, and an engine with per-route counters
// but no row for the task contributes none (it would count zero
// requests of another endpoint); engines that count every route alike
// are read as they are.
func TestRouteFilterPerTask(t *testing.T) {
	omni, _ := ByName(SGLangOmni)
	withSpeech := *omni
	withSpeech.Tasks = append(slices.Clone(omni.Tasks), TaskRow{Task: "speech", Route: "/v1/audio/speech", Stream: "audio/pcm", Source: "test"})
	vllm, _ := ByName(VLLM)
	rows := []*Engine{vllm, &withSpeech}

	got := requestCountersFor(rows, "speech")
	if len(got) != 2 || got[0].Match != nil || !maps.Equal(got[1].Match, map[string]string{"route": "/v1/audio/speech"}) {
		t.Errorf("speech counters %+v", got)
	}
	if omni.Metrics.Requests.Match != nil {
		t.Error("the table's row was written")
	}
	fams := stageFamiliesFor(rows, "speech")
	if i := slices.IndexFunc(fams, func(f StageFamily) bool { return f.Stage == StageHTTP }); i < 0 || fams[i].Match["route"] != "/v1/audio/speech" {
		t.Errorf("speech stage families %+v", fams)
	}
	got = requestCountersFor([]*Engine{vllm, omni}, "speech")
	if len(got) != 1 || got[0].Engine != VLLM {
		t.Errorf("an engine without a speech row gave counters: %+v", got)
	}
	if fams := stageFamiliesFor([]*Engine{omni}, "speech"); len(fams) != 0 {
		t.Errorf("an engine without a speech row gave stage families: %+v", fams)
	}
}

// TestSpeechRows: vLLM-Omni and SGLang-Omni have tts rows on
// /v1/audio/speech, each fact with its file@commit; SGLang-Omni's is
// Unmetered, so a tts run reads none of its counters or stage families
// (its ASR runs still do), and its speech refusal is its own 503 at 16
// running + 16 queued.
func TestSpeechRows(t *testing.T) {
	for _, name := range []string{VLLMOmni, SGLangOmni} {
		e, _ := ByName(name)
		r, ok := e.Task(TaskTTS)
		if !ok || r.Route != SpeechPath || r.Source == "" || len(r.Facts) < 5 {
			t.Fatalf("%s: tts row %+v, %v", name, r, ok)
		}
		for _, f := range r.Facts {
			if f.What == "" || !strings.Contains(f.Source, "@") && !strings.Contains(f.Source, "PR #") {
				t.Errorf("%s: fact %q without a file@commit or a PR", name, f.What)
			}
		}
	}
	if v, _ := ByName(VLLM); func() bool { _, ok := v.Task(TaskTTS); return ok }() {
		t.Error("plain vLLM has a tts row: it serves no /v1/audio/speech")
	}
	for _, rc := range RequestCountersFor(TaskTTS) {
		if rc.Engine == SGLangOmni {
			t.Errorf("a tts run reads SGLang-Omni's %s, which its main does not serve for TTS", rc.Name)
		}
	}
	for _, f := range StageFamiliesFor(TaskTTS) {
		if strings.HasPrefix(f.Family, "sglang_omni_") {
			t.Errorf("a tts run reads SGLang-Omni's %s", f.Family)
		}
	}
	if !slices.ContainsFunc(RequestCountersFor(TaskASR), func(rc RequestCounter) bool { return rc.Engine == SGLangOmni }) {
		t.Error("ASR runs lost SGLang-Omni's counter")
	}
	so, _ := ByName(SGLangOmni)
	r, _ := so.Task(TaskTTS)
	if sh := r.Shedding; sh == nil || sh.Status != 503 || sh.DefaultRunning != 16 || sh.DefaultQueued != 16 || sh.Message != "The request queue is full." {
		t.Errorf("SGLang-Omni's speech shedding %+v", r.Shedding)
	}
	if r.Unmetered == "" || r.Stream != SpeechRawPCM {
		t.Errorf("SGLang-Omni's tts row %+v", r)
	}
}
