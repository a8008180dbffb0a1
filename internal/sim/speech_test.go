package sim

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/task"
)

func postSpeech(t *testing.T, url string, body map[string]any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestSpeech: the vllm-omni persona speaks: a WAV whose duration follows
// the text, decoded by the tts task as a success; the same text sounds
// the same; a raw PCM stream sends its headers before its audio; bad
// references are vLLM-Omni's 400s; the vllm persona serves no speech.
func TestSpeech(t *testing.T) {
	_, ts := newTestServer(t, Config{Persona: PersonaVLLMOmni, BaseLatency: 200 * time.Millisecond})
	ref := "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(makeWAV(t, 16000, 1.5, 3))
	text := "Hello from the simulated voice."
	want := float64(len(text)) * SpeechSecondsPerChar
	var sums []string
	for range 2 {
		resp := postSpeech(t, ts.URL, map[string]any{"model": "Qwen/Qwen3-ASR-1.7B", "input": text, "ref_audio": ref, "ref_text": "x"})
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/wav" {
			t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		out, _, _ := task.TTS.Decode(nil, resp.Header.Get("Content-Type"), b)
		a, err := task.ParseAudio(out)
		if _, class, msg := task.TTS.Score(out); err != nil || class != "" || a.SampleRate != SpeechRate || a.Seconds < want-0.001 || a.Seconds > want+0.001 {
			t.Fatalf("decoded %s (%v): class %q %s; want %v s", out, err, class, msg, want)
		}
		sums = append(sums, a.SHA256)
	}
	if sums[0] != sums[1] {
		t.Fatal("the same text was spoken differently")
	}

	sent := time.Now()
	resp := postSpeech(t, ts.URL, map[string]any{"input": text, "stream": true, "stream_format": "audio", "response_format": "pcm"})
	headers := time.Since(sent)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/pcm" || headers > 150*time.Millisecond {
		t.Fatalf("stream: %d %s after %v (want headers before the audio)", resp.StatusCode, resp.Header.Get("Content-Type"), headers)
	}
	var first time.Duration
	out, _, err := task.TTS.DecodeStream(bufio.NewReader(resp.Body), func() { first = time.Since(sent) })
	if a, _ := task.ParseAudio(out); err != nil || first < 15*time.Millisecond || first < headers || a.Seconds < want-0.001 {
		t.Fatalf("stream: first audio after %v, %s, %v", first, out, err)
	}

	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"input": ""}, "Input text cannot be empty"},
		{map[string]any{"input": "x", "ref_audio": "/data/ref.wav"}, "ref_audio must be a URL"},
		{map[string]any{"input": "x", "ref_audio": "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(makeWAV(t, 16000, 0.5, 3))}, "between 1 and 30 seconds"},
		{map[string]any{"input": "x", "stream": true}, "SSE"},
	} {
		resp := postSpeech(t, ts.URL, c.body)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), c.msg) {
			t.Errorf("%v: %d %s, want 400 %q", c.body, resp.StatusCode, b, c.msg)
		}
	}

	// A stream cut halfway is aborted: the tts task reads stream_truncated.
	_, cut := newTestServer(t, Config{Persona: PersonaVLLMOmni, StreamCutRate: 1})
	resp = postSpeech(t, cut.URL, map[string]any{"input": text, "stream": true, "stream_format": "audio", "response_format": "pcm"})
	out, _, err = task.TTS.DecodeStream(bufio.NewReader(resp.Body), func() {})
	var se *task.StreamError
	if !errors.As(err, &se) || se.Class != "stream_truncated" || out != "" {
		t.Fatalf("cut stream: %q, %v; want stream_truncated", out, err)
	}

	// With Cache, an identical reference is answered faster; a variant
	// (one byte of the WAV changed) is not.
	_, cached := newTestServer(t, Config{Persona: PersonaVLLMOmni, Cache: true, BaseLatency: 300 * time.Millisecond})
	wav := makeWAV(t, 16000, 1.5, 5)
	took := func(wav []byte) time.Duration {
		t0 := time.Now()
		resp := postSpeech(t, cached.URL, map[string]any{"input": "x y z", "ref_audio": "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(wav)})
		io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("cache: %d", resp.StatusCode)
		}
		return time.Since(t0)
	}
	took(wav)
	hit := took(wav)
	wav[len(wav)-1] ^= 1
	miss := took(wav)
	if hit >= 250*time.Millisecond || miss < 300*time.Millisecond {
		t.Errorf("reference cache: identical %v (want < 250ms), variant %v (want >= 300ms)", hit, miss)
	}

	_, vl := newTestServer(t, Config{Persona: PersonaVLLM})
	if resp := postSpeech(t, vl.URL, map[string]any{"input": "x"}); resp.StatusCode != 404 {
		t.Errorf("vllm persona: /v1/audio/speech %d, want 404", resp.StatusCode)
	}
}
