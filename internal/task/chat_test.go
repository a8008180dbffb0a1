package task_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"net/http/httptest"
)

// chatCorpus writes two clips with their transcripts.
func chatCorpus(t *testing.T) (string, []task.Clip) {
	t.Helper()
	dir := t.TempDir()
	for i, text := range []string{"the quick brown fox", "jumps over the lazy dog today"} {
		id := []string{"a", "b"}[i]
		os.WriteFile(filepath.Join(dir, id+".wav"), testkit.NoiseWAV(1+float64(i)/2, uint64(i+1)), 0o644)
		os.WriteFile(filepath.Join(dir, id+".txt"), []byte(text+"\n"), 0o644)
	}
	clips, err := task.ChatAudio.LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, clips
}

// TestChatAudioPersonas runs chat-audio streamed through the runner
// against the simulator's vLLM-Omni persona (the clip as an input_audio
// content part, usage only with stream_options) and its SGLang-Omni one
// (the clip in the top-level audios list, usage in the finish chunk): the
// answers are the transcripts (WER 0), their output tokens the server's
// usage, the claims carry TTFT, ITL and output tokens per second, and
// verify fails no check of the run directory. The vLLM-Omni persona
// given the SGLang-Omni shape answers 400 (no audio in its messages): the
// run stops at its warm-ups.
func TestChatAudioPersonas(t *testing.T) {
	corpus, clips := chatCorpus(t)
	simClips, err := sim.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, persona, part string
		ok                  bool
	}{
		{"vllm-omni input_audio", sim.PersonaVLLMOmni, task.ChatInputAudio, true},
		{"vllm-omni audio_url", sim.PersonaVLLMOmni, task.ChatAudioURL, true},
		{"sglang-omni audios", sim.PersonaSGLangOmni, task.ChatAudios, true},
		{"vllm-omni given audios", sim.PersonaVLLMOmni, task.ChatAudios, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := sim.New(sim.Config{Persona: tc.persona, Model: "Qwen/Qwen3-Omni-30B-A3B-Instruct", Corpus: simClips, BaseLatency: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			s, err := session.Start(context.Background(), session.Config{
				Out: filepath.Join(t.TempDir(), "run"), Servers: session.Servers{GPUs: map[string][]int{}},
				Plan: bench.Plan{Task: task.ChatAudio, Stream: true, Targets: []bench.Target{{Name: "t", URL: hs.URL, Model: srv.Config().Model,
					Fields: map[string]string{"audio_part": tc.part}}}, Corpus: clips,
					Levels: []int{1, 2}, Requests: []int{4, 4}, Warmup: []int{1, 1}, Repeats: 1, Seed: 2, Command: []string{"benchseal", "run"},
					Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}},
				Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: bench.DefaultTimeout,
			})
			defer s.Stop()
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Run(context.Background())
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "HTTP 400") || !strings.Contains(err.Error(), "no audio in the request") {
					t.Fatalf("the wrong shape: err %v; want the run stopped on its 400s", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := res.Claims.Targets[0].Levels[0].Median
			if m.Succeeded != 4 || m.Quality == nil || *m.Quality != 0 {
				t.Fatalf("succeeded %d, WER %v: want 4 answers, each its transcript", m.Succeeded, m.Quality)
			}
			for _, f := range []string{task.FigTTFTP50, task.FigTTFTP95, task.FigTTFTP99, task.FigITLP50, task.FigITLP95, task.FigOutputTokPS} {
				if m.Figure(f) == nil || *m.Figure(f) <= 0 {
					t.Errorf("figure %s = %v, want observed", f, m.Figure(f))
				}
			}
			// The persona sleeps 20 ms before its first token: a lower
			// bound, whatever the machine's load.
			if ttft := *m.Figure(task.FigTTFTP95); ttft < 0.02 {
				t.Errorf("ttft p95 %v s: want >= 20 ms (the first chunk's, not the headers')", ttft)
			}
			b, _ := os.ReadFile(filepath.Join(res.Dir, schemas.RecordsPath("t", 1, 1)))
			line := strings.SplitN(string(b), "\n", 2)[0]
			if !strings.Contains(line, `\"tokens_from\":\"usage\"`) || !strings.Contains(line, `\"stream\":true`) {
				t.Errorf("a record's answer facts do not count the server's usage of a stream: %s", line)
			}
			rep, err := verify.Dir(context.Background(), res.Dir, verify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Checks {
				if c.Status == verify.Fail {
					t.Errorf("check %d %s: FAIL %s %v", c.ID, c.Name, c.Summary, c.Findings)
				}
			}
		})
	}
}

// TestChatAudioEnvelope: each audio_part puts the clip's base64 last, so
// the suffix closes valid JSON; a reserved field is refused.
func TestChatAudioEnvelope(t *testing.T) {
	for part, want := range map[string]string{
		task.ChatInputAudio: `{"type":"input_audio","input_audio":{"format":"wav","data":"QUJD"}}]}]}`,
		task.ChatAudioURL:   `{"type":"audio_url","audio_url":{"url":"data:audio/wav;base64,QUJD"}}]}]}`,
		task.ChatAudios:     `"messages":[{"role":"user","content":"say"}],"audios":["data:audio/wav;base64,QUJD"]}`,
	} {
		es, err := task.ChatAudio.Envelope(task.Target{Model: "m", Stream: true, Fields: map[string]string{"audio_part": part, "prompt": "say", "max_tokens": "64"}})
		if err != nil {
			t.Fatal(err)
		}
		e, _ := es.For(task.Item{ID: "a"})
		body := string(e.Prefix) + "QUJD" + string(e.Suffix)
		if !strings.HasSuffix(body, want) || !strings.Contains(body, `"stream_options":{"include_usage":true}`) || !strings.Contains(body, `"max_tokens":"64"`) {
			t.Errorf("%s: %s", part, body)
		}
	}
	if _, err := task.ChatAudio.Envelope(task.Target{Fields: map[string]string{"messages": "x"}}); err == nil {
		t.Error("a reserved field was accepted")
	}
}
