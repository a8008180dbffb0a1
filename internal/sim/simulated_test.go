package sim

import (
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
)

// Every persona names itself in /v1/models (engine.SimulatorField), so a
// run against the simulator cannot pass for one against an engine.
func TestNamesItself(t *testing.T) {
	for _, persona := range []string{PersonaVLLM, PersonaVLLMOmni, PersonaSGLangOmni} {
		_, ts := newTestServer(t, Config{Persona: persona})
		status, body := get(t, ts.URL+"/v1/models")
		if got := engine.Simulated(string(body)); status != 200 || got != persona {
			t.Errorf("%s: /v1/models %d %s names %q", persona, status, body, got)
		}
	}
}

// Every persona publishes its settings beside its name
// (engine.SimulatorSettingsField), every key of engine.SimSettings.
func TestPublishesSettings(t *testing.T) {
	_, ts := newTestServer(t, Config{Persona: PersonaVLLM, MaxRunning: 8, MaxQueue: 12, BaseLatency: 50 * time.Millisecond, FailRate: 0.1, Cache: true})
	_, body := get(t, ts.URL+"/v1/models")
	got := engine.SimulatedSettings(string(body))
	for _, k := range engine.SimSettings {
		if _, ok := got[k.Key]; !ok {
			t.Errorf("setting %s not published: %s", k.Key, body)
		}
	}
	for k, want := range map[string]any{"persona": "vllm", "max_running": 8.0, "max_queue": 12.0, "max_queued_tokens": "unlimited",
		"base_latency_ms": 50.0, "fail_rate": 0.1, "cache": true, "chunk_seconds": "engine default"} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	_, sg := newTestServer(t, Config{Persona: PersonaSGLangOmni})
	_, body = get(t, sg.URL+"/v1/models")
	if got := engine.SimulatedSettings(string(body)); got["max_running"] != 64.0 {
		t.Errorf("sglang-omni max_running %v, want its engine's default 64", got["max_running"])
	}
}
