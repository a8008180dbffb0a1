package sim

// API contract used by the runner's tests and the CLI; the implementation
// fills in the bodies. Signatures are fixed; fields may be added.

import (
	"net/http"
	"time"
)

// Personas.
const (
	PersonaVLLM       = "vllm"
	PersonaSGLangOmni = "sglang-omni"
)

// Clip is one clip the server recognises, even when perturbed by one LSB.
type Clip struct {
	Audio []byte // the original WAV file bytes
	Text  string // the reference transcript it answers
}

// Config configures a simulated server. Zero values are sensible defaults
// (persona vllm, no latency, unlimited running, no queue limit).
type Config struct {
	Persona        string
	Model          string // served model name; default "Qwen/Qwen3-ASR-1.7B"
	Corpus         []Clip
	BaseLatency    time.Duration // per request
	PerAudioSecond time.Duration // added per second of audio
	MaxRunning     int           // admitted at once (0: unlimited); the rest queue
	MaxQueue       int           // queued beyond MaxRunning before shedding (0: unlimited)
	Cache          bool          // identical bytes are answered from a cache almost at once
	FailRate       float64       // fraction of requests that fail with the persona's 500
	WordErrorRate  float64       // fraction of reference words substituted in answers
	Seed           uint64
}

// Server is a simulated OpenAI-compatible ASR server.
type Server struct {
	cfg Config
}

// New checks cfg and returns a server; serve it with net/http.
func New(cfg Config) (*Server, error) { panic("sim: not implemented") }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { panic("sim: not implemented") }
