package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
)

// TestSpeechNamedVoice: both personas speak a request without a reference
// clip (a named voice, as both engines' CustomVoice does), and refuse a
// ref_text without its ref_audio as their engines do: vLLM-Omni's 400
// (a ref_text makes a Base request, which needs ref_audio), SGLang-Omni's
// 500 server_error (its CustomVoice refuses a ref_text).
func TestSpeechNamedVoice(t *testing.T) {
	for _, c := range []struct {
		persona string
		status  int
		body    string
	}{
		{PersonaVLLMOmni, 400, "Base task requires 'ref_audio' or 'speaker_embedding' for voice cloning"},
		{PersonaSGLangOmni, 500, `{"error":{"message":"Qwen3-TTS CustomVoice does not accept ref_text","type":"server_error","param":null,"code":null}}`},
	} {
		_, ts := newTestServer(t, Config{Persona: c.persona})
		resp := postSpeech(t, ts.URL, map[string]any{"input": "A named voice speaks.", "voice": "vivian"})
		b, _ := io.ReadAll(resp.Body)
		out, _, _ := task.TTS.Decode(nil, resp.Header.Get("Content-Type"), b)
		if _, class, msg := task.TTS.Score(out); resp.StatusCode != 200 || class != "" {
			t.Errorf("%s: a named voice: %d %s %s", c.persona, resp.StatusCode, class, msg)
		}
		// A voice the persona does not list: vLLM-Omni's list is its
		// checkpoint's speakers, so it refuses the voice; SGLang-Omni's
		// lists only "default" and uploads, and takes it.
		resp = postSpeech(t, ts.URL, map[string]any{"input": "x", "voice": "Nobody"})
		io.Copy(io.Discard, resp.Body)
		if want := map[string]int{PersonaVLLMOmni: 400, PersonaSGLangOmni: 200}[c.persona]; resp.StatusCode != want {
			t.Errorf("%s: an unlisted voice: %d, want %d", c.persona, resp.StatusCode, want)
		}
		vr, err := http.Get(ts.URL + "/v1/audio/voices")
		if err != nil {
			t.Fatal(err)
		}
		var list struct{ Voices []string }
		json.NewDecoder(vr.Body).Decode(&list)
		vr.Body.Close()
		if want := map[string]string{PersonaVLLMOmni: "ryan,serena,vivian", PersonaSGLangOmni: "default"}[c.persona]; strings.Join(list.Voices, ",") != want {
			t.Errorf("%s: GET /v1/audio/voices lists %v, want %s", c.persona, list.Voices, want)
		}
		resp = postSpeech(t, ts.URL, map[string]any{"input": "x", "voice": "vivian", "ref_text": "no clip"})
		b, _ = io.ReadAll(resp.Body)
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.body) {
			t.Errorf("%s: ref_text without ref_audio: %d %s, want %d %s", c.persona, resp.StatusCode, b, c.status, c.body)
		}
	}
}
