package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
)

// The embedded corpus is five real WAVs, each with a non-empty reference,
// and it refuses to write over an existing folder.
func TestWriteCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := WriteCorpus(dir); err != nil {
		t.Fatal(err)
	}
	wavs, _ := filepath.Glob(filepath.Join(dir, "*.wav"))
	if len(wavs) != 5 {
		t.Fatalf("%d clips, want 5", len(wavs))
	}
	for _, w := range wavs {
		wav, err := perturb.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		if wav.Format.SampleRate != 16000 || wav.Format.Channels != 1 || wav.Format.BitsPerSample != 16 || wav.Seconds() < 1 {
			t.Errorf("%s: %+v, %.2fs: want 16 kHz 16-bit mono speech", w, wav.Format, wav.Seconds())
		}
		ref, err := os.ReadFile(strings.TrimSuffix(w, ".wav") + ".txt")
		if err != nil || len(strings.Fields(string(ref))) < 4 {
			t.Errorf("%s: reference %q, %v", w, ref, err)
		}
	}
	if err := WriteCorpus(dir); err == nil {
		t.Error("WriteCorpus over an existing folder succeeded")
	}
}

// The tts demo corpus loads as a text corpus: five texts, each with a
// reference clip inside vLLM-Omni's 1-30 s and its transcript.
func TestWriteTTSCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := WriteTTSCorpus(dir); err != nil {
		t.Fatal(err)
	}
	clips, err := task.TTS.LoadCorpus(filepath.Join(dir, TTSCorpusFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 5 {
		t.Fatalf("%d items, want 5", len(clips))
	}
	for _, c := range clips {
		if s := c.WAV.Seconds(); s < 1 || s > 30 || len(strings.Fields(c.Speak)) < 5 || c.Text == "" {
			t.Errorf("%s: %.2f s reference, text %q, reference text %q", c.ID, s, c.Speak, c.Text)
		}
	}
}
