package bench

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheckVoices: a vLLM-Omni-shaped server (owned_by vllm, its voices
// listed at /v1/audio/voices) refuses a plan whose items without a
// reference clip name a voice it does not list, folding case as the
// engine does; items with a reference clip are not checked; SGLang-Omni's
// list, which leaves out a checkpoint's speakers, is not held against.
func TestCheckVoices(t *testing.T) {
	serve := func(ownedBy string) *httptest.Server {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/models":
				io.WriteString(w, `{"object":"list","data":[{"id":"Qwen/Qwen3-TTS","object":"model","owned_by":"`+ownedBy+`"}]}`)
			case "/v1/audio/voices":
				io.WriteString(w, `{"voices":["default","ryan","vivian"],"uploaded_voices":[]}`)
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(ts.Close)
		return ts
	}
	clips, _ := testCorpus(t, 1, 1)
	ref := clips[0] // has a reference clip
	named := func(id, voice string) Clip { return Clip{ID: id, Voice: voice, Speak: "hello"} }
	ref.Voice = "elsewhere"
	corpus := []Clip{named("a", "Vivian"), named("b", "nobody"), named("c", "nobody"), ref}
	cfg := &config{timeout: DefaultTimeout, progress: Discard}
	vo := serve("vllm")
	_, err := preflight(context.Background(), cfg, "tts", []Target{{Name: "vo", URL: vo.URL}}, corpus, false)
	var ve *VoiceError
	if !errors.As(err, &ve) || len(ve.Missing) != 1 || strings.Join(ve.Missing["nobody"], ",") != "b,c" || ve.Engine != "vllm-omni" {
		t.Fatalf("preflight: %v, want a VoiceError for \"nobody\" (b, c) on vllm-omni", err)
	}
	if _, err := preflight(context.Background(), cfg, "tts", []Target{{Name: "vo", URL: vo.URL}}, corpus[:1], false); err != nil {
		t.Fatalf("a listed voice, another case: %v", err)
	}
	if _, err := preflight(context.Background(), cfg, "tts", []Target{{Name: "vo", URL: vo.URL, Fields: map[string]string{"voice": "ryan"}}}, corpus, false); err != nil {
		t.Fatalf("the target's voice field speaks every item: %v", err)
	}
	so := serve("sglang-omni")
	if _, err := preflight(context.Background(), cfg, "tts", []Target{{Name: "so", URL: so.URL}}, corpus, false); err != nil {
		t.Fatalf("sglang-omni's list is not complete, so not held against: %v", err)
	}
}
