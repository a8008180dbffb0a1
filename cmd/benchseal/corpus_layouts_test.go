package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit/corpora"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// TestCorpusLayoutsRunSealVerify: a LibriSpeech folder (FLAC), a Common
// Voice TSV (MP3) and a Hugging Face Parquet shard (FLAC cells, columns
// named with --audio-column and --text-column), each made here, are run
// against the simulator (which recognises the decoded clips, as sim
// --corpus does), sealed and verified: run.json's corpus names each
// clip's source format and the source file's SHA-256, inputs/ holds the
// decoded WAV (the bytes sent and perturbed), and the simulator, knowing
// every reference, leaves a WER of 0. A bundle of the LibriSpeech or
// Common Voice run sealed --no-audio verifies its variants with --audio
// the original corpus (its FLAC or MP3 files, decoded again).
func TestCorpusLayoutsRunSealVerify(t *testing.T) {
	for _, layout := range []string{"librispeech", "commonvoice", "parquet"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			utts := corpora.Utterances(layout, 3)
			var corpus string
			var args []string
			sources := map[string][]byte{} // clip id -> source bytes
			format := task.SourceFLAC
			switch layout {
			case "librispeech":
				corpus = filepath.Join(dir, "LibriSpeech", "dev-clean")
				for _, u := range corpora.LibriSpeech(t, corpus, utts) {
					b, err := os.ReadFile(filepath.Join(corpus, strings.Split(u.ID, "-")[0], strings.Split(u.ID, "-")[1], u.ID+".flac"))
					if err != nil {
						t.Fatal(err)
					}
					sources[u.ID] = b
				}
			case "commonvoice":
				format = task.SourceMP3
				corpus = corpora.CommonVoice(t, filepath.Join(dir, "cv", "en"), utts)
				for _, u := range utts {
					id := "common_voice_en_" + u.ID
					b, err := os.ReadFile(filepath.Join(dir, "cv", "en", "clips", id+".mp3"))
					if err != nil {
						t.Fatal(err)
					}
					sources[id] = b
				}
			case "parquet":
				corpus = filepath.Join(dir, "test-00000-of-00001.parquet")
				corpora.Parquet(t, corpus, "speech", "transcription", utts, func(u corpora.Utterance) ([]byte, string) {
					b := corpora.FLAC(t, u.Rate, u.Samples)
					sources[u.ID] = b
					return b, "flac"
				})
				args = []string{"--audio-column", "speech", "--text-column", "transcription"}
			}
			var clips []sim.Clip
			if layout == "parquet" {
				items, err := task.LoadWAVCorpusWith(corpus, task.CorpusOptions{AudioColumn: "speech", TextColumn: "transcription"})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range items {
					clips = append(clips, sim.Clip{Audio: c.WAV.Bytes, Text: c.Text})
				}
			} else {
				var err error
				if clips, err = simCorpus(corpus); err != nil {
					t.Fatal(err)
				}
			}
			url, stop, err := startSim(sim.Config{Corpus: clips})
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			rundir, bundle := filepath.Join(dir, "run"), filepath.Join(dir, "b.tar.zst")
			code, _, stderr := runCLI(t, append([]string{"run", "--target", "a=" + url, "--corpus", corpus, "--concurrency", "1,2",
				"--requests", "6", "--repeats", "1", "--out", rundir, "--seal", bundle}, args...)...)
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "(decoded to WAV: 3 from "+strings.ToUpper(format)+")") {
				t.Errorf("run's corpus line does not say the clips were decoded:\n%s", stderr)
			}
			if code, stdout, stderr := runCLI(t, "verify", bundle); code != 0 {
				t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if layout != "parquet" {
				// Sealed without its audio, the bundle's variants re-derive
				// from the original corpus: each clip found by its
				// source_sha256 and decoded again.
				na := filepath.Join(dir, "no-audio.tar.zst")
				if code, _, stderr := runCLI(t, "seal", rundir, "-o", na, "--no-audio"); code != 0 {
					t.Fatalf("seal --no-audio: exit %d\n%s", code, stderr)
				}
				code, stdout, stderr := runCLI(t, "verify", na, "--audio", filepath.Dir(corpus), "--json")
				var rep verify.Report
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
					t.Fatalf("verify --json: %v\n%s", err, stderr)
				}
				if c := rep.Check(verify.CheckVariants); code != 0 || c == nil || c.Status != verify.Pass {
					t.Errorf("verify --no-audio bundle --audio the corpus: exit %d, check 5 %+v", code, c)
				}
			}
			var run schemas.Run
			readJSON(t, filepath.Join(rundir, "run.json"), &run)
			if len(run.Corpus) != len(utts) {
				t.Fatalf("run.json: %d clips, want %d", len(run.Corpus), len(utts))
			}
			for _, c := range run.Corpus {
				src, ok := sources[c.ID]
				if !ok {
					t.Fatalf("run.json names clip %q, not one of the corpus's", c.ID)
				}
				s := sha256.Sum256(src)
				if c.SourceFormat != format || c.SourceSHA256 != hex.EncodeToString(s[:]) {
					t.Errorf("clip %s: source_format %q source_sha256 %s, want %s of its source", c.ID, c.SourceFormat, c.SourceSHA256, format)
				}
				wav, err := os.ReadFile(filepath.Join(rundir, c.File))
				if err != nil {
					t.Fatal(err)
				}
				w := sha256.Sum256(wav)
				if c.SHA256 != hex.EncodeToString(w[:]) || !strings.HasPrefix(string(wav), "RIFF") || c.SHA256 == c.SourceSHA256 {
					t.Errorf("clip %s: %s is not the decoded WAV its sha256 names", c.ID, c.File)
				}
			}
			var cl schemas.Claims
			readJSON(t, filepath.Join(rundir, "claims.json"), &cl)
			for _, l := range cl.Targets[0].Levels {
				if m := l.Median; m.Failed != 0 || m.Quality == nil || *m.Quality != 0 {
					t.Errorf("c%d: failed %d, wer %v: the simulator did not recognise the decoded clips", l.Concurrency, m.Failed, m.Quality)
				}
			}
		})
	}
}
