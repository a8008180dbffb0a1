package task_test

import (
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// TestTTSServerEvidence: a tts session against the vllm-omni persona
// keeps its /metrics scrapes as server evidence, as ASR runs do, and
// they carry vLLM-Omni's audio families: after the step,
// vllm_omni:audio_duration_s counts every answer (warm-ups and measured)
// with their produced seconds as its sum, vllm_omni:audio_frames_total
// their samples, vllm_omni:audio_rtf one observation each; the families
// /v1/audio/speech never observes (audio_ttfp_s) are declared with no
// sample.
func TestTTSServerEvidence(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "Server evidence for speech."
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(corpus, []byte(`{"id":"a","text":"`+text+`","ref_audio":"ref.wav","ref_text":"noise"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clips, err := task.TTS.LoadCorpus(corpus)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni, BaseLatency: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	s, err := session.Start(context.Background(), session.Config{
		Out: filepath.Join(dir, "run"), Servers: session.Servers{GPUs: map[string][]int{}},
		Plan: bench.Plan{Task: task.TTS, Targets: []bench.Target{{Name: "vo", URL: hs.URL, Model: srv.Config().Model}}, Corpus: clips,
			Levels: []int{1}, Requests: []int{3}, Warmup: []int{1}, Repeats: 1, Seed: 2, Command: []string{"benchseal", "run"},
			Scoring: schemas.Scoring{Normalizer: "none", Aligner: "unit", Unit: "word", Failures: "excluded"}},
		Tool: schemas.Tool{Name: "benchseal", Version: "v0.0.0-test"}, Timeout: bench.DefaultTimeout, SampleInterval: bench.DefaultTimeout,
	})
	defer s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(res.Dir, filepath.FromSlash(schemas.MetricsPath("vo", 1, 1, "after"))))
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v", err)
	}
	seconds := float64(len(text)) * sim.SpeechSecondsPerChar
	dur, rtf, frames := fams["vllm_omni:audio_duration_s"], fams["vllm_omni:audio_rtf"], fams["vllm_omni:audio_frames_total"]
	if dur == nil || rtf == nil || frames == nil || !strings.Contains(string(raw), "# TYPE vllm_omni:audio_ttfp_s histogram\n") || strings.Contains(string(raw), "vllm_omni:audio_ttfp_s_count") {
		t.Fatalf("audio families missing or ttfp observed:\n%s", raw)
	}
	h := dur.Metric[0].GetHistogram()
	if h.GetSampleCount() != 4 || math.Abs(h.GetSampleSum()-4*seconds) > 1e-6 || rtf.Metric[0].GetHistogram().GetSampleCount() != 4 {
		t.Fatalf("audio_duration_s count %d sum %v, want 4 answers of %v s", h.GetSampleCount(), h.GetSampleSum(), seconds)
	}
	if got := frames.Metric[0].GetCounter().GetValue(); got != 4*float64(len(sim.Speech(text))) {
		t.Fatalf("audio_frames_total %v, want %d", got, 4*len(sim.Speech(text)))
	}
}
