package session

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/schemas"
)

func TestEngineOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"data":[{"id":"m","owned_by":"vllm"}]}`:                                   "vllm",
		`{"data":[{"owned_by":"sglang-omni"},{"owned_by":"vllm"},{"owned_by":""}]}`: "sglang-omni, vllm",
		`{"data":[{"id":"m"}]}`:                                                     "",
		`not json`:                                                                  "",
	} {
		if got := EngineOf([]byte(body)); got != want {
			t.Errorf("EngineOf(%s) = %q, want %q", body, got, want)
		}
	}
	// Every engine's owned_by is recognised by the engine table (vLLM-Omni
	// says "vllm" as vLLM does, so the owner, not the engine, must agree).
	for _, e := range engine.All() {
		if e.Models.OwnedBy == "" {
			continue
		}
		if got, ok := engine.ByOwnedBy(EngineOf([]byte(`{"data":[{"owned_by":"` + e.Models.OwnedBy + `"}]}`))); !ok || got.Models.OwnedBy != e.Models.OwnedBy {
			t.Errorf("%s: owned_by %q does not map back to the engine", e.Name, e.Models.OwnedBy)
		}
	}
}

func TestEnginesAndCurrentEngine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"data":[{"id":"m","owned_by":"sglang-omni"}]}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	if got := CurrentEngine(ctx, srv.Client(), srv.URL+"/", "k"); got != "sglang-omni" {
		t.Errorf("CurrentEngine = %q, want sglang-omni", got)
	}
	if got := CurrentEngine(ctx, srv.Client(), srv.URL, ""); got != "" {
		t.Errorf("CurrentEngine without the key = %q, want \"\" (HTTP 401)", got)
	}

	capture := func(target string, status int, body string) []byte {
		b, err := json.Marshal(schemas.ServerCapture{Target: target, Probes: []schemas.Probe{{Path: "/v1/models", Status: status, Body: body}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	s := &Sealed{Files: map[string][]byte{
		schemas.ServerPath("a", schemas.ProbesBeforeFile): capture("a", 200, `{"data":[{"owned_by":"vllm"}]}`),
		schemas.ServerPath("b", schemas.ProbesBeforeFile): capture("b", 503, `{"data":[{"owned_by":"vllm"}]}`),
		schemas.RunFile: []byte(`{}`),
	}}
	got := s.Engines()
	if len(got) != 1 || got["a"] != "vllm" {
		t.Errorf("Engines = %v, want map[a:vllm] (b's probe was not 200)", got)
	}
}
