package demo

import (
	"time"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
)

// ChatModel is the model the chat-audio demo's simulators serve:
// Qwen3-Omni, as both engines serve it on /v1/chat/completions.
const ChatModel = "Qwen/Qwen3-Omni-30B-A3B-Instruct"

// ChatEngines are the simulated audio chat servers `benchseal demo
// --task chat-audio` compares: the simulator's vllm-omni persona (50 ms
// before the first token plus 5 ms per second of audio, 8 running at
// once; the clip as an input_audio content part) and its sglang-omni one
// (70 ms plus 4 ms, 16 running and 16 queued; the clip in its top-level
// audios list). Each answers a clip with its transcript (a few words
// wrong), one word a streamed chunk sim.ChatTokenInterval apart.
var ChatEngines = []Engine{
	{"vllm-omni", sim.Config{Persona: sim.PersonaVLLMOmni, Model: ChatModel, BaseLatency: 50 * time.Millisecond, PerAudioSecond: 5 * time.Millisecond,
		MaxRunning: 8, WordErrorRate: 0.05, Seed: 5}},
	{"sglang-omni", sim.Config{Persona: sim.PersonaSGLangOmni, Model: ChatModel, BaseLatency: 70 * time.Millisecond, PerAudioSecond: 4 * time.Millisecond,
		MaxRunning: 16, MaxQueue: 16, WordErrorRate: 0.07, Seed: 6}},
}

// ChatRunArgs are the chat-audio demo's run arguments besides its
// targets, the corpus and the output: a closed-loop sweep of streams (so
// that time to first token is observed), the clip sent as each engine
// takes it (sglang-omni's audio_part, its own field: the same clip, in
// another place of the body).
var ChatRunArgs = []string{"--task", "chat-audio", "--concurrency", "1,4,8", "--requests", "10,24,32", "--repeats", "2",
	"--stream", "--form", "sglang-omni:audio_part=" + task.ChatAudios}

// SetupChat writes the ASR demo corpus into dir (the clips the chat
// requests send, their transcripts the references) and serves every one
// of ChatEngines on a free loopback port, recognising it.
func SetupChat(dir string) (sims []Sim, stop func(), err error) {
	if err := WriteCorpus(dir); err != nil {
		return nil, nil, err
	}
	clips, err := sim.LoadCorpus(dir)
	if err != nil {
		return nil, nil, err
	}
	return serve(ChatEngines, clips)
}
