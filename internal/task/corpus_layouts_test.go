package task_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit/corpora"
)

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// pcmOf is a clip's sample bytes as decoded (its WAV's data chunk).
func pcmOf(c task.Clip) []byte {
	return c.WAV.Bytes[c.WAV.DataOffset : c.WAV.DataOffset+c.WAV.DataSize]
}

// TestLoadLibriSpeech: a LibriSpeech folder (FLAC clips and a
// *.trans.txt per chapter) loads in path order, each clip decoded to the
// very samples that were encoded, its reference the transcript line's,
// its source the FLAC and its SHA-256 the FLAC file's.
func TestLoadLibriSpeech(t *testing.T) {
	dir := t.TempDir()
	want := corpora.LibriSpeech(t, dir, corpora.Utterances("u", 4))
	clips, err := task.LoadWAVCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != len(want) {
		t.Fatalf("%d clips, want %d", len(clips), len(want))
	}
	for i, c := range clips {
		u := want[i]
		if c.ID != u.ID || c.Text != u.Text {
			t.Errorf("clip %d: %q %q, want %q %q", i, c.ID, c.Text, u.ID, u.Text)
		}
		if !bytes.Equal(pcmOf(c), u.PCM()) {
			t.Errorf("clip %s: the decoded samples are not the encoded ones", c.ID)
		}
		if c.WAV.Format.SampleRate != 16000 || c.WAV.Format.Channels != 1 || c.WAV.Format.BitsPerSample != 16 {
			t.Errorf("clip %s: format %+v", c.ID, c.WAV.Format)
		}
		flac, err := os.ReadFile(c.Source)
		if err != nil || !strings.HasSuffix(c.Source, ".flac") {
			t.Fatalf("clip %s: source %s: %v", c.ID, c.Source, err)
		}
		if c.SourceFormat != task.SourceFLAC || c.SourceSHA256 != sum(flac) || hex.EncodeToString(c.SHA256[:]) != sum(c.WAV.Bytes) {
			t.Errorf("clip %s: source %s %s, sha256 %x", c.ID, c.SourceFormat, c.SourceSHA256, c.SHA256)
		}
	}
}

// TestLoadCommonVoice: a Common Voice TSV with MP3 clips in clips/ loads
// each line's clip decoded once to mono 16-bit PCM at the MP3's rate, its
// sentence the reference, its locale the language, the MP3's SHA-256
// kept.
func TestLoadCommonVoice(t *testing.T) {
	dir := t.TempDir()
	utts := corpora.Utterances("cv", 3)
	tsv := corpora.CommonVoice(t, dir, utts)
	clips, err := task.LoadWAVCorpus(tsv)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != len(utts) {
		t.Fatalf("%d clips, want %d", len(clips), len(utts))
	}
	for i, c := range clips {
		if c.ID != "common_voice_en_"+utts[i].ID || c.Text != utts[i].Text || c.Language != "en" {
			t.Errorf("clip %d: %q %q %q", i, c.ID, c.Text, c.Language)
		}
		f := c.WAV.Format
		if f.SampleRate != 16000 || f.Channels != 1 || f.BitsPerSample != 16 || c.WAV.Frames() < int64(len(utts[i].Samples)) {
			t.Errorf("clip %s: %+v, %d frames (encoded %d)", c.ID, f, c.WAV.Frames(), len(utts[i].Samples))
		}
		mp3, _ := os.ReadFile(filepath.Join(dir, "clips", c.ID+".mp3"))
		if c.SourceFormat != task.SourceMP3 || c.SourceSHA256 != sum(mp3) {
			t.Errorf("clip %s: source %s %s", c.ID, c.SourceFormat, c.SourceSHA256)
		}
	}
	// Decoding is deterministic: loaded again, the same WAVs.
	again, err := task.LoadWAVCorpus(tsv)
	if err != nil || again[0].SHA256 != clips[0].SHA256 {
		t.Errorf("a second load decodes another WAV: %v", err)
	}
}

// TestLoadParquet: a Parquet shard with an audio struct of bytes + path
// and a text column loads with the default columns (FLAC cells, decoded
// losslessly) and with --audio-column/--text-column (WAV cells, sent as
// they are); a missing column names the file's columns and the flag.
func TestLoadParquet(t *testing.T) {
	dir := t.TempDir()
	utts := corpora.Utterances("hf", 3)
	def := filepath.Join(dir, "train-00000-of-00001.parquet")
	var flacs [][]byte
	corpora.Parquet(t, def, "audio", "text", utts, func(u corpora.Utterance) ([]byte, string) {
		b := corpora.FLAC(t, u.Rate, u.Samples)
		flacs = append(flacs, b)
		return b, "flac"
	})
	clips, err := task.LoadWAVCorpus(def)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != len(utts) {
		t.Fatalf("%d clips, want %d", len(clips), len(utts))
	}
	for i, c := range clips {
		if c.ID != utts[i].ID || c.Text != utts[i].Text || !bytes.Equal(pcmOf(c), utts[i].PCM()) {
			t.Errorf("row %d: %q %q (samples equal: %v)", i, c.ID, c.Text, bytes.Equal(pcmOf(c), utts[i].PCM()))
		}
		if c.SourceFormat != task.SourceFLAC || c.SourceSHA256 != sum(flacs[i]) || !strings.HasSuffix(c.Source, ".parquet#"+string(rune('0'+i))) {
			t.Errorf("row %d: source %s %s %s", i, c.Source, c.SourceFormat, c.SourceSHA256)
		}
	}

	custom := filepath.Join(dir, "custom.parquet")
	corpora.Parquet(t, custom, "speech", "transcription", utts, func(u corpora.Utterance) ([]byte, string) { return u.WAV(), "wav" })
	if _, err := task.LoadWAVCorpus(custom); err == nil || !strings.Contains(err.Error(), `no audio column "audio"`) || !strings.Contains(err.Error(), "--audio-column") || !strings.Contains(err.Error(), "speech") {
		t.Errorf("default columns on a shard without them: %v", err)
	}
	clips, err = task.LoadWAVCorpusWith(custom, task.CorpusOptions{AudioColumn: "speech", TextColumn: "transcription"})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range clips {
		if c.Text != utts[i].Text || !bytes.Equal(c.WAV.Bytes, utts[i].WAV()) || c.SourceFormat != "" || c.SourceSHA256 != "" {
			t.Errorf("row %d: a WAV cell is not sent as it is: %q %s", i, c.Text, c.SourceFormat)
		}
	}
	if _, err := task.LoadWAVCorpusWith(custom, task.CorpusOptions{AudioColumn: "speech", TextColumn: "sentence"}); err == nil || !strings.Contains(err.Error(), `no text column "sentence"`) {
		t.Errorf("a missing text column: %v", err)
	}
	if _, err := task.LoadWAVCorpusWith(dir, task.CorpusOptions{TextColumn: "x"}); err == nil || !strings.Contains(err.Error(), "not a .parquet file") {
		t.Errorf("--text-column with a folder: %v", err)
	}
}

// TestLoadFLACFolder: a folder may hold FLAC clips beside WAVs, with
// same-named .txt references; a .wav that is really a FLAC is still
// refused (only a name that says FLAC is decoded).
func TestLoadFLACFolder(t *testing.T) {
	dir := t.TempDir()
	u := corpora.Utterances("f", 2)
	os.WriteFile(filepath.Join(dir, "a.flac"), corpora.FLAC(t, u[0].Rate, u[0].Samples), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(u[0].Text), 0o644)
	os.WriteFile(filepath.Join(dir, "b.wav"), u[1].WAV(), 0o644)
	clips, err := task.LoadWAVCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 || clips[0].ID != "a" || clips[0].Text != u[0].Text || clips[0].SourceFormat != task.SourceFLAC || clips[1].SourceFormat != "" {
		t.Fatalf("clips %+v", clips)
	}
	os.WriteFile(filepath.Join(dir, "c.wav"), corpora.FLAC(t, u[0].Rate, u[0].Samples[:100]), 0o644)
	if _, err := task.LoadWAVCorpus(dir); err == nil || !strings.Contains(err.Error(), "a FLAC file, not a WAV") {
		t.Errorf("a FLAC named .wav: %v", err)
	}
}
