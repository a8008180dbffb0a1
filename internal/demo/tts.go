package demo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
)

// ttsTexts are the tts demo's texts to speak, one a line; line i is
// spoken with clip0<i>.wav of the ASR corpus (an espeak-ng voice, 2-3.5
// s: inside vLLM-Omni's 1-30 s) and its transcript as the reference.
//
//go:embed tts.txt
var ttsTexts string

// TTSCorpusFile is the corpus file WriteTTSCorpus writes, the --corpus
// of `benchseal run --task tts`.
const TTSCorpusFile = "corpus.jsonl"

// WriteTTSCorpus writes the tts demo corpus into dir (created; it must
// not exist): the ASR corpus's clips and transcripts as the reference
// clips and texts, and TTSCorpusFile, a JSONL text corpus whose items
// speak the embedded texts in voice-clone requests ({id, text, ref_audio,
// ref_text}).
func WriteTTSCorpus(dir string) error {
	if err := WriteCorpus(dir); err != nil {
		return err
	}
	var jl strings.Builder
	for i, text := range strings.Split(strings.TrimSpace(ttsTexts), "\n") {
		id := fmt.Sprintf("clip%02d", i+1)
		ref, err := corpus.ReadFile("corpus/" + id + ".txt")
		if err != nil {
			return err
		}
		b, _ := json.Marshal(map[string]string{"id": "tts" + id[4:], "text": text, "ref_audio": id + ".wav", "ref_text": strings.TrimSpace(string(ref))})
		jl.Write(append(b, '\n'))
	}
	return os.WriteFile(filepath.Join(dir, TTSCorpusFile), []byte(jl.String()), 0o644)
}

// TTSEngines are the simulated speech servers `benchseal demo --task tts`
// compares, one line each: the simulator's vllm-omni persona (40 ms a
// request plus 6 ms per second of audio, 8 running at once) and its
// sglang-omni one (60 ms plus 4 ms, SGLang-Omni's Qwen3-TTS admission of
// 16 running and 16 queued, beyond which it answers 503 "The request
// queue is full."; no /metrics for speech, as SGLang-Omni's main branch).
// What they are is in the demo's log and the report's "Simulated
// servers" warning (their /v1/models names the persona). Both cache
// identical references (vLLM-Omni keys the sha1 of the ref_audio string,
// SGLang-Omni the xxh3 of the data URI), which the variants defeat.
var TTSEngines = []Engine{
	{"vllm-omni", sim.Config{Persona: sim.PersonaVLLMOmni, Model: TTSModel, BaseLatency: 40 * time.Millisecond, PerAudioSecond: 6 * time.Millisecond,
		MaxRunning: 8, Cache: true, Seed: 3}},
	{"sglang-omni", sim.Config{Persona: sim.PersonaSGLangOmni, Model: TTSModel, BaseLatency: 60 * time.Millisecond, PerAudioSecond: 4 * time.Millisecond,
		MaxRunning: 16, MaxQueue: 16, Cache: true, Seed: 4}},
}

// TTSModel is the model the tts demo's simulators serve: Qwen3-TTS's
// voice-clone checkpoint, as vLLM-Omni's TTS benchmark serves it
// (vllm-project/vllm-omni benchmarks/tts/README.md@d6240742).
const TTSModel = sim.DefaultTTSModel

// TTSRunArgs are the tts demo's run arguments besides its targets, the
// corpus and the output: a closed-loop sweep with raw PCM streams, so
// that time to first audio is observed. vLLM-Omni streams raw bytes with
// stream_format "audio"; SGLang-Omni streams raw s16le with stream:true
// and response_format "pcm" and ignores unknown fields
// (sgl-project/sglang-omni sglang_omni/serve/speech_service.py@3f4286eb),
// so the same arguments serve an SGLang-Omni persona added to
// TTSEngines.
var TTSRunArgs = []string{"--task", "tts", "--concurrency", "1,4,8", "--requests", "10,24,32", "--repeats", "2",
	"--stream", "--form", "stream_format=audio", "--form", "response_format=pcm"}

// SetupTTS writes the tts demo corpus into dir and serves every one of
// TTSEngines on a free loopback port; it returns the corpus file to run.
func SetupTTS(dir string) (corpusFile string, sims []Sim, stop func(), err error) {
	if err := WriteTTSCorpus(dir); err != nil {
		return "", nil, nil, err
	}
	sims, stop, err = serve(TTSEngines, nil)
	return filepath.Join(dir, TTSCorpusFile), sims, stop, err
}
