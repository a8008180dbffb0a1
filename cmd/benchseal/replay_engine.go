package main

// Replay compares a server with the one the sealed run measured; if the
// server now describes itself as another engine (vLLM then, SGLang-Omni
// now), every figure that differs may be the engine's, not a regression.
// It says so before measuring.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/schemas"
)

// engineOf reads what a /v1/models answer says about who serves the
// models: the owned_by of its entries, which each engine sets to its own
// name (vLLM vllm/entrypoints/openai/engine/protocol.py @040a2cc2
// ModelCard: "vllm";
// SGLang-Omni sglang_omni/serve/protocol.py @042173f5 ModelCard:
// "sglang-omni"; SGLang: "sglang"). "" when the answer does not say.
func engineOf(body []byte) string {
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

// sealedEngines reads, per target, the engine its sealed probes describe.
func sealedEngines(files map[string][]byte) map[string]string {
	out := map[string]string{}
	for name, b := range files {
		if !schemas.IsProbesBefore(name) {
			continue
		}
		var c schemas.ServerCapture
		if json.Unmarshal(b, &c) != nil {
			continue
		}
		for _, p := range c.Probes {
			if p.Path == "/v1/models" && p.Status == http.StatusOK {
				if eng := engineOf([]byte(p.Body)); eng != "" {
					out[c.Target] = eng
				}
			}
		}
	}
	return out
}

// warnEngineChange asks each target's /v1/models now and warns, before
// anything is measured, where it names another engine than the sealed
// run's server did.
func warnEngineChange(ctx context.Context, e *env, sealed map[string]string, targets []bench.Target, apiKey string) {
	client := &http.Client{Timeout: 10 * time.Second}
	for _, t := range targets {
		was, ok := sealed[t.Name]
		if !ok {
			continue
		}
		now := currentEngine(ctx, client, t.URL, apiKey)
		if now == "" || now == was {
			continue
		}
		warnf(e.stderr, "target %s: the sealed run measured a server that described itself as %q (/v1/models owned_by); %s now says %q: the replay compares another engine, not the same one again", t.Name, was, t.URL, now)
	}
}

func currentEngine(ctx context.Context, client *http.Client, url, apiKey string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(url, "/")+"/v1/models", nil)
	if err != nil {
		return ""
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "" // the run's preflight names an unreachable target
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return engineOf(b)
}

// replayModelError words a target that does not serve the sealed run's
// model: replay has no --model, the model is the sealed one.
func replayModelError(err error) error {
	return withHint(&usageError{err}, "the replay requests the model the sealed run measured: point --target at a server of that model, or pass --allow-unlisted-model if the server ignores the model field")
}
