package sim

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/testkit"
)

// TestChatShapes: the vllm-omni persona takes the clip as an input_audio
// part, refuses a stream that names no modalities (vLLM-Omni's assert) and
// sends usage only when stream_options asks; the sglang-omni persona takes
// it in the top-level audios list and sends usage in its finish chunk.
// Both end a stream with a finish_reason and [DONE].
func TestChatShapes(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(testkit.NoiseWAV(1, 1))
	post := func(t *testing.T, persona, body string) (int, string) {
		t.Helper()
		srv, err := New(Config{Persona: persona})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	part := `"messages":[{"role":"user","content":[{"type":"text","text":"t"},{"type":"input_audio","input_audio":{"format":"wav","data":"` + b64 + `"}}]}]`
	if code, body := post(t, PersonaVLLMOmni, `{"stream":true,`+part+`}`); code != 400 || !strings.Contains(body, "must specify output modalities") {
		t.Errorf("vllm-omni stream without modalities: %d %s", code, body)
	}
	code, body := post(t, PersonaVLLMOmni, `{"stream":true,"modalities":["text"],`+part+`}`)
	if code != 200 || strings.Contains(body, `"usage"`) || !strings.Contains(body, `"finish_reason":"stop"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("vllm-omni stream without include_usage: %d %s", code, body)
	}
	code, body = post(t, PersonaVLLMOmni, `{"stream":true,"modalities":["text"],"stream_options":{"include_usage":true},`+part+`}`)
	if code != 200 || !strings.Contains(body, `"completion_tokens"`) {
		t.Errorf("vllm-omni stream with include_usage: %d %s", code, body)
	}
	code, body = post(t, PersonaSGLangOmni, `{"stream":true,"messages":[{"role":"user","content":"t"}],"audios":["data:audio/wav;base64,`+b64+`"]}`)
	if code != 200 || !strings.Contains(body, `"completion_tokens"`) || !strings.Contains(body, `"finish_reason":"stop"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("sglang-omni stream: %d %s", code, body)
	}
	if code, body := post(t, PersonaSGLangOmni, `{`+part+`}`); code != 400 {
		t.Errorf("sglang-omni given an input_audio part: %d %s (want 400: it reads audios)", code, body)
	}
}
