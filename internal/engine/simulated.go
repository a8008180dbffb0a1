package engine

import (
	"encoding/json"
	"strings"
)

// SimulatorField is the top-level field benchseal's simulator (benchseal
// sim, internal/sim) adds to its GET /v1/models answer, naming the persona
// it imitates: {"object": "list", "data": [...], "benchseal_sim": "vllm"}.
// No engine sends it, and clients of the OpenAI API ignore fields they do
// not know, so every persona keeps its engine's shape; the fingerprint
// records /v1/models in servers/<t>/probes-before.json and -after.json, so
// a bundle measured against the simulator says so where its server
// descriptions are sealed.
const SimulatorField = "benchseal_sim"

// Simulated reads a /v1/models body and returns the persona benchseal's
// simulator names in SimulatorField, "" when the body is not the
// simulator's.
func Simulated(modelsBody string) string {
	if !strings.Contains(modelsBody, SimulatorField) {
		return ""
	}
	var v map[string]json.RawMessage
	if json.Unmarshal([]byte(modelsBody), &v) != nil {
		return ""
	}
	var persona string
	if json.Unmarshal(v[SimulatorField], &persona) != nil {
		return ""
	}
	return persona
}
