package sim

import (
	"testing"

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
