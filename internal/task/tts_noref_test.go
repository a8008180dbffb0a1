package task_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
)

// TestTTSNoReference: an item without a reference clip (a named voice,
// CustomVoice) is sent as the whole JSON body, without ref_audio (nor
// ref_text), its voice the item's or the target's; an item with neither
// voice nor reference is refused for a target that sets no voice, naming
// the corpus line.
func TestTTSNoReference(t *testing.T) {
	dir := t.TempDir()
	jl := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(jl, []byte(`{"id":"v","text":"Hello there.","voice":"vivian","language":"English"}`+"\n"+`{"id":"n","text":"No voice."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clips, err := task.TTS.LoadCorpus(jl)
	if err != nil || len(clips) != 2 {
		t.Fatal(clips, err)
	}
	es, err := task.TTS.Envelope(task.Target{Model: "m", Fields: map[string]string{"response_format": "pcm"}, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := es.For(clips[0].Item())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Suffix) != 0 || e.ContentType != "application/json" {
		t.Errorf("envelope %+v: want the whole body as prefix", e)
	}
	var body map[string]any
	if err := json.Unmarshal(e.Prefix, &body); err != nil {
		t.Fatalf("%s: %v", e.Prefix, err)
	}
	want := map[string]any{"model": "m", "response_format": "pcm", "voice": "vivian", "language": "English", "input": "Hello there.", "stream": true}
	if len(body) != len(want) {
		t.Errorf("body %s, want the members %v", e.Prefix, want)
	}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("body %s: %s = %v, want %v", e.Prefix, k, body[k], v)
		}
	}
	_, err = es.For(clips[1].Item())
	var nv *task.NoVoiceError
	if !errors.As(err, &nv) || !strings.Contains(err.Error(), "item n ("+jl+":2) has no ref_audio and no voice") || !strings.Contains(err.Error(), "--form voice=NAME") {
		t.Fatalf("an item with neither voice nor reference: %v", err)
	}
	// The target's voice speaks it.
	es, err = task.TTS.Envelope(task.Target{Model: "m", Fields: map[string]string{"voice": "ryan"}})
	if err != nil {
		t.Fatal(err)
	}
	if e, err = es.For(clips[1].Item()); err != nil || string(e.Prefix) != `{"model":"m","voice":"ryan","input":"No voice."}` {
		t.Fatalf("%s %v", e.Prefix, err)
	}
}
