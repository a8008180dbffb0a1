package fingerprint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// pcmWAV is a mono 16-bit 16 kHz WAV of n samples.
func pcmWAV(n int) []byte {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(i * 37 % 2000)
	}
	return testkit.PCM16(16000, s)
}

func transcribe(t *testing.T, url string, wav []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "a.wav")
	fw.Write(wav)
	mw.WriteField("model", sim.DefaultModel)
	mw.Close()
	resp, err := http.Post(url+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("transcription: %s", resp.Status)
	}
}

func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	raw, fams, err := fingerprint.ScrapeMetrics(context.Background(), http.DefaultClient, url, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	return fingerprint.CacheCounters(fams)
}

// firstHit is the counter internal/claims takes cache_hits from: the first
// of engine.CacheHitCounters present in both scrapes.
func firstHit(before, after map[string]float64) string {
	for _, name := range engine.CacheHitCounters {
		if _, ok := before[name]; ok {
			if _, ok := after[name]; ok {
				return name
			}
		}
	}
	return ""
}

// The simulated engines expose the counters under the names the real ones
// use; a cache hit shows in the counter claims reads only for identical
// bytes.
func TestCacheHitsAgainstSim(t *testing.T) {
	wav := pcmWAV(16000)
	for _, persona := range []string{sim.PersonaVLLM, sim.PersonaVLLMOmni, sim.PersonaSGLangOmni} {
		t.Run(persona, func(t *testing.T) {
			// Every persona serving Qwen3-ASR (vllm-omni's default is its TTS model).
			s, err := sim.New(sim.Config{Persona: persona, Model: sim.DefaultModel, Cache: true, Corpus: []sim.Clip{{Audio: wav, Text: "hello world"}}})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(s)
			defer srv.Close()
			c := fingerprint.Capture(context.Background(), srv.Client(), "a", srv.URL, nil, "before")
			b, _ := jsonMarshal(c)
			if err := schemas.Validate("probe", b); err != nil || len(c.Probes) < 2 {
				t.Fatalf("capture: %v %s", err, b)
			}
			want := fingerprint.VLLMMMCacheHits
			before := scrape(t, srv.URL)
			if persona == sim.PersonaSGLangOmni {
				// SGLang-Omni caches by content but has no cache counter
				// (serve/metrics.py @0641581e): nothing to read, before or
				// after a hit.
				transcribe(t, srv.URL, wav)
				transcribe(t, srv.URL, wav)
				if after := scrape(t, srv.URL); len(before) != 0 || len(after) != 0 {
					t.Errorf("sglang-omni cache counters %v -> %v, want none", before, after)
				}
				return
			}
			// Perturbed: every body differs by one byte, so no hit.
			for i := range 3 {
				v := bytes.Clone(wav)
				v[44+2*i] ^= 1
				transcribe(t, srv.URL, v)
			}
			mid := scrape(t, srv.URL)
			if got := firstHit(before, mid); got != want || mid[want] != before[want] {
				t.Errorf("perturbed: counter %q, want %s; %v -> %v", got, want, before, mid)
			}
			// Unperturbed: the same bytes twice, the second one a hit.
			transcribe(t, srv.URL, wav)
			transcribe(t, srv.URL, wav)
			after := scrape(t, srv.URL)
			if got := firstHit(mid, after); got != want || after[want] <= mid[want] {
				t.Errorf("identical bytes: counter %q, want %s; %v -> %v", got, want, mid, after)
			}
		})
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
