package demo

import (
	"time"

	"github.com/benchseal/benchseal/internal/sim"
)

// RealtimeEngines are the simulated realtime recognition servers
// `benchseal demo --task realtime` compares, each in its engine's
// protocol (internal/engine's realtime rows; run picks it from the
// engine /v1/models names): the simulator's vllm persona (Qwen3-ASR's
// realtime on vLLM: each 5 s segment decoded once it is in, 40 ms plus
// 10 ms per second of audio a decode, 8 at once) and its sglang-omni one
// (cumulative re-decodes every 2 s of audio, 60 ms plus 8 ms per second,
// 16 at once).
var RealtimeEngines = []Engine{
	{"vllm", sim.Config{Persona: sim.PersonaVLLM, BaseLatency: 40 * time.Millisecond, PerAudioSecond: 10 * time.Millisecond,
		MaxRunning: 8, WordErrorRate: 0.04, Seed: 7}},
	{"sglang-omni", sim.Config{Persona: sim.PersonaSGLangOmni, BaseLatency: 60 * time.Millisecond, PerAudioSecond: 8 * time.Millisecond,
		MaxRunning: 16, WordErrorRate: 0.06, Seed: 8}},
}

// RealtimeRunArgs are the realtime demo's run arguments besides its
// targets, the corpus and the output: a closed-loop sweep of sessions
// (concurrency is sessions streaming at once), each clip streamed in
// 100 ms chunks at four times real time (25 ms apart) so the demo takes
// about two minutes.
var RealtimeRunArgs = []string{"--task", "realtime", "--concurrency", "1,4,16", "--requests", "8,24,64", "--repeats", "2",
	"--realtime-speed", "4"}

// SetupRealtime writes the ASR demo corpus (16 kHz mono clips, as both
// engines stream them) into dir and serves every one of RealtimeEngines
// on a free loopback port.
func SetupRealtime(dir string) (sims []Sim, stop func(), err error) {
	if err := WriteCorpus(dir); err != nil {
		return nil, nil, err
	}
	clips, err := sim.LoadCorpus(dir)
	if err != nil {
		return nil, nil, err
	}
	return serve(RealtimeEngines, clips)
}
