package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
)

// TestCorpusLine: before a run, the corpus is described: a 44.1 kHz
// stereo clip and a clip without a reference transcript, which run
// measures as any other, are named there.
func TestCorpusLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.wav", testkit.PCM16(16000, testkit.Ramp(37, 16000)))
	write("a.txt", []byte("the cat sat"))
	write("b.wav", testkit.PCM16(16000, testkit.Ramp(91, 8000)))
	write("b.txt", []byte("a dog ran"))
	stereo := make([]byte, 44100*2*2) // 1 s of 16-bit stereo
	for i := range stereo {
		stereo[i] = byte(i * 7)
	}
	write("c.wav", testkit.WAV(44100, 2, 16, stereo))
	clips, err := bench.LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "corpus: 3 clips, 2.5 s of audio: 2 at 16 kHz 16-bit mono, 1 at 44.1 kHz 16-bit stereo; 1 without a reference transcript (c): not scored"
	if got := corpusLine("asr", clips); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := corpusLine("asr", clips[:2]); got != "corpus: 2 clips, 1.5 s of audio: 2 at 16 kHz 16-bit mono; every clip has a reference transcript" {
		t.Errorf("got %s", got)
	}
}

// TestCorpusLineNamedVoices: a tts corpus's items without a reference clip
// are named first, as sent unchanged; the reference clips follow.
func TestCorpusLineNamedVoices(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.wav"), testkit.PCM16(16000, testkit.Ramp(37, 24000)), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := bench.LoadClip(filepath.Join(dir, "a.wav"))
	if err != nil {
		t.Fatal(err)
	}
	clips := []bench.Clip{{ID: "v", Voice: "vivian", Speak: "hi"}, c, {ID: "w", Voice: "ryan", Speak: "yo"}}
	want := "corpus: 3 items, 2 without a reference clip (v, w): sent unchanged every time, nothing to perturb; 1 reference clip, 1.5 s of audio: 1 at 16 kHz 16-bit mono"
	if got := corpusLine("tts", clips); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := corpusLine("tts", clips[:1]); got != "corpus: 1 item, 1 without a reference clip (v): sent unchanged every time, nothing to perturb" {
		t.Errorf("got %s", got)
	}
}

// TestCorpusLineTTS: a tts corpus whose items all have a reference clip
// is worded as texts to speak with reference clips, never as "every clip
// has a reference transcript", ASR's words (issue 36).
func TestCorpusLineTTS(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.PCM16(16000, testkit.Ramp(37, 24000)), 0o644); err != nil {
		t.Fatal(err)
	}
	jl := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(jl, []byte(`{"id":"a","text":"Say this.","ref_audio":"ref.wav","ref_text":"noise"}
{"id":"b","text":"And this.","ref_audio":"ref.wav"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	clips, err := task.TTS.LoadCorpus(jl)
	if err != nil {
		t.Fatal(err)
	}
	want := "corpus: 2 items, each a text to speak with a reference clip; 2 reference clips, 3.0 s of audio: 2 at 16 kHz 16-bit mono"
	if got := corpusLine("tts", clips); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
