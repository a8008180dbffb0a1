package session

// Replay compares a server with the one the sealed run measured; if the
// server now describes itself as another engine (vLLM then, SGLang-Omni
// now), every figure that differs may be the engine's, not a regression.
// These read who served then and who serves now; the CLI words the
// difference before measuring.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// EngineOf reads what a /v1/models answer says about who serves the
// models: the owned_by of its entries, which each engine sets to its own
// name (vLLM vllm/entrypoints/openai/engine/protocol.py @040a2cc2
// ModelCard: "vllm";
// SGLang-Omni sglang_omni/serve/protocol.py @042173f5 ModelCard:
// "sglang-omni"; SGLang: "sglang"; engine.ByOwnedBy maps them to the
// engine table). Several owners are joined, sorted, with ", ". "" when
// the answer does not say.
func EngineOf(body []byte) string {
	var list struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return ""
	}
	var owners []string
	for _, m := range list.Data {
		if m.OwnedBy != "" && !slices.Contains(owners, m.OwnedBy) {
			owners = append(owners, m.OwnedBy)
		}
	}
	slices.Sort(owners)
	return strings.Join(owners, ", ")
}

// Engines reads, per target, the engine its sealed probes (before the run)
// describe. A target whose probes say nothing is absent.
func (s *Sealed) Engines() map[string]string {
	out := map[string]string{}
	for name, b := range s.Files {
		if !schemas.IsProbesBefore(name) {
			continue
		}
		var c schemas.ServerCapture
		if json.Unmarshal(b, &c) != nil {
			continue
		}
		for _, p := range c.Probes {
			if p.Path == "/v1/models" && p.Status == http.StatusOK {
				if eng := EngineOf([]byte(p.Body)); eng != "" {
					out[c.Target] = eng
				}
			}
		}
	}
	return out
}

// CurrentEngine asks url's /v1/models now (with apiKey as a bearer token
// when given) and returns EngineOf its answer; "" when the server does
// not answer 200 (the run's preflight names an unreachable target).
func CurrentEngine(ctx context.Context, client *http.Client, url, apiKey string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/v1/models", nil)
	if err != nil {
		return ""
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return EngineOf(b)
}
