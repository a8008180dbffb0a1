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

// SimulatorSettingsField is the top-level field of the simulator's GET
// /v1/models answer, beside SimulatorField, that publishes the settings
// it was started with ({"persona": "vllm", "max_running": 8, ...}): what
// decides a simulated result as much as an engine's knobs decide a real
// one. A limit the simulator does not bound is "unlimited". verify's
// fairness check compares them (SimSettings) as it compares server
// knobs; the report's simulated banner names those that differ.
const SimulatorSettingsField = "benchseal_sim_settings"

// SimSetting is one published simulator setting: its key in
// SimulatorSettingsField and the knob benchseal compares it as (one of
// KnobNames where it is one of the engines' knobs, else its own name).
// Compared is false for a setting published only to be read (the
// persona: comparing engines is the point; the seed: which requests a
// rate picks, not how many).
type SimSetting struct {
	Key      string
	Knob     string
	Compared bool
}

// SimSettings are the simulator's published settings, in the order a
// reader sees them.
var SimSettings = []SimSetting{
	{"persona", "simulated persona", false},
	{"max_running", KnobMaxRunning, true},
	{"max_queue", "max queued requests", true},
	{"max_queued_tokens", "max queued prompt tokens", true},
	{"base_latency_ms", "base latency (ms)", true},
	{"per_audio_second_ms", "latency per audio second (ms)", true},
	{"fail_rate", "failure rate", true},
	{"stream_fail_rate", "stream failure rate", true},
	{"stream_cut_rate", "stream cut rate", true},
	{"word_error_rate", "word error rate", true},
	{"cache", "answer cache", true},
	{"chunk_seconds", "chunk seconds", true},
	{"metrics_lag_ms", "metrics lag (ms)", true},
	{"raw_prefix", "raw prefix", true},
	{"ready_delay_ms", "ready delay (ms)", false},
	{"seed", "seed", false},
}

// SimulatedSettings reads a /v1/models body's SimulatorSettingsField: nil
// when the body has none (not the simulator, or one from before it
// published its settings).
func SimulatedSettings(modelsBody string) map[string]any {
	if !strings.Contains(modelsBody, SimulatorSettingsField) {
		return nil
	}
	var v map[string]json.RawMessage
	if json.Unmarshal([]byte(modelsBody), &v) != nil {
		return nil
	}
	var settings map[string]any
	if json.Unmarshal(v[SimulatorSettingsField], &settings) != nil {
		return nil
	}
	return settings
}
