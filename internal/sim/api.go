package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
)

// Personas.
const (
	PersonaVLLM       = engine.VLLM
	PersonaVLLMOmni   = engine.VLLMOmni
	PersonaSGLangOmni = engine.SGLangOmni
)

// DefaultModel is the served model name when Config.Model is empty, but
// for a persona whose engine is served for speech (DefaultModelOf).
const DefaultModel = "Qwen/Qwen3-ASR-1.7B"

// DefaultTTSModel is the vllm-omni persona's served model name when
// Config.Model is empty: vLLM-Omni serves Qwen3-TTS (its ASR it serves
// through vLLM's API server, as vllm does).
const DefaultTTSModel = "Qwen/Qwen3-TTS-12Hz-1.7B-Base"

// DefaultModelOf is the model persona serves when Config.Model is empty:
// its row's (vllm-omni: DefaultTTSModel), else DefaultModel.
func DefaultModelOf(persona string) string {
	if p, ok := personas[persona]; ok && p.model != "" {
		return p.model
	}
	return DefaultModel
}

// RawPrefix is what Qwen3-ASR emits before the transcript and some engines
// pass through (vLLM's streaming does); Config.RawPrefix turns it on.
const RawPrefix = "language English<asr_text>"

// Clip is one clip the server recognises, even when perturbed by one LSB.
type Clip struct {
	Audio []byte // the original WAV file bytes
	Text  string // the reference transcript it answers
}

// Config configures a simulated server. Zero values are sensible defaults
// (persona vllm, no latency, the engine's running limit, no queue limit).
type Config struct {
	Persona        string
	Model          string // served model name; default DefaultModelOf(Persona)
	Corpus         []Clip
	BaseLatency    time.Duration // per request
	PerAudioSecond time.Duration // added per second of audio
	// MaxRunning requests are admitted at once, the rest queue; 0 is the
	// persona's engine default (its row's Shedding.DefaultRunning:
	// sglang-omni 64, Qwen3-ASR's max_running_requests; vllm unlimited).
	MaxRunning int
	// MaxQueue bounds the queue before the next request is shed (0:
	// unlimited), counted as the persona's engine counts it (its row's
	// Shedding.InFlight): vLLM's --max-num-queued-reqs caps the requests
	// in flight, running and waiting together (each engine request of a
	// chunked transcription a slot), so MaxQueue N holds N; SGLang-Omni's
	// --max_queued_requests (which counts request builds pending too)
	// counts the waiters, so it holds MaxRunning + N.
	MaxQueue int
	// MaxQueuedTokens is vLLM's --max-num-queued-tokens: a request whose
	// prompt tokens (promptTokens of its audio) would take the tokens of
	// the requests still in prefill past it is shed as MaxQueue sheds
	// (0: unlimited; only for a persona whose engine row has the bound,
	// Shedding.TokensFlag).
	MaxQueuedTokens int
	Cache           bool    // identical bytes are answered from a cache almost at once
	FailRate        float64 // fraction of requests that fail with the persona's 500
	WordErrorRate   float64 // fraction of reference words substituted in answers
	Seed            uint64

	// ChunkSeconds is the model's max_audio_clip_s: longer audio is split
	// into engine requests as the persona's engine splits it (the engine
	// row's Transcription.Chunking; 0: its ClipS, vllm 30 s, sglang-omni
	// 60 s; negative: never split).
	ChunkSeconds float64

	// RawPrefix puts RawPrefix before every transcript (plain, JSON and
	// streamed), as some engines serving Qwen3-ASR do.
	RawPrefix bool
	// ReadyDelay models a slow model load: until it has passed since New,
	// every endpoint but /metrics answers 503.
	ReadyDelay time.Duration
	// RequestLog, if set, gets one line per request:
	// "sim: <method> <path> <status> <milliseconds>ms".
	RequestLog io.Writer

	// DevMode is vLLM's VLLM_SERVER_DEV_MODE=1: only then does the vllm
	// persona serve /server_info. SGLang-Omni has no such endpoint.
	DevMode bool
	// NoMetrics: /metrics answers 404, as SGLang-Omni does unless its
	// metrics are enabled.
	NoMetrics bool
	// StreamFailRate makes that fraction of streamed requests fail midway
	// (after half their words) with the persona's error event: vLLM
	// data: {"error":{...}} then [DONE]; SGLang-Omni
	// data: {"type":"error",...} and no [DONE].
	StreamFailRate float64
	// StreamCutRate makes that fraction of streamed requests end midway
	// with no error event, no final event and no [DONE] (a connection the
	// server dropped).
	StreamCutRate float64

	// OTLPEndpoint is vLLM's --otlp-traces-endpoint: the vllm personas
	// export one span per request there (otlp.go); OTLPProtocol is
	// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (OTLPGRPC, the default, or
	// OTLPHTTP, which posts to the endpoint as given).
	OTLPEndpoint, OTLPProtocol string
	// ProfilerDir is SGLANG_TORCH_PROFILER_DIR: where the sglang-omni
	// persona's request profiler writes when a start names no event_dir
	// (profiler.go).
	ProfilerDir string
	// SGLangMetrics is the sglang-omni persona's /metrics design:
	// SGLangHTTPMetrics ("" too), serve/metrics.py's sglang_omni_http_*
	// and pipeline gauges, or SGLangRuntimeMetrics, the prometheus_client
	// design's sglang_omni:asr_* families (metrics/runtime.py@ee5df70a),
	// which release ships which being unknown.
	SGLangMetrics string
	// MetricsLag delays every request's count and stage observations in
	// /metrics by this long after its answer was handed to the HTTP side,
	// as vLLM's output handler records a finished request's stats after
	// pushing its output (internal/fingerprint's DefaultSettleBound); 0:
	// counted at once.
	MetricsLag time.Duration
}

// ConfigError reports an unusable Config field.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("sim: %s: %s", e.Field, e.Reason) }

// Server is a simulated OpenAI-compatible ASR server.
type Server struct {
	cfg       Config
	started   time.Time
	index     *index
	mux       *http.ServeMux
	admission admission
	// speechAdmission is the speech endpoint's own, when the persona's
	// engine admits speech apart (speechShape.running).
	speechAdmission admission
	metrics         *metrics
	seq             atomic.Uint64 // requests seen, for ids and the fail draw

	cacheMu sync.RWMutex
	cache   map[digest]string // transcript by body identity
	refs    map[[20]byte]bool // speech: references seen, by sha1 of the ref_audio string (speech.go)

	logMu sync.Mutex

	traces spanExporter // otlp.go
	prof   profiler     // profiler.go

	samplesOnce sync.Once
	samples     [][]byte // realtime.go's clipSamples
}

// New checks cfg and returns a server; serve it with net/http.
func New(cfg Config) (*Server, error) {
	switch cfg.Persona {
	case "":
		cfg.Persona = PersonaVLLM
	default:
		if _, ok := personas[cfg.Persona]; ok {
			break
		}
		return nil, &ConfigError{"persona", fmt.Sprintf("unknown persona %q (want %s)", cfg.Persona, personaList())}
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModelOf(cfg.Persona)
	}
	if cfg.MaxRunning == 0 {
		cfg.MaxRunning = personas[cfg.Persona].eng.Shedding.DefaultRunning
	}
	switch {
	case cfg.BaseLatency < 0:
		return nil, &ConfigError{"base latency", "negative"}
	case cfg.PerAudioSecond < 0:
		return nil, &ConfigError{"per audio second", "negative"}
	case cfg.ReadyDelay < 0:
		return nil, &ConfigError{"ready delay", "negative"}
	case cfg.MetricsLag < 0:
		return nil, &ConfigError{"metrics lag", "negative"}
	case cfg.MaxRunning < 0:
		return nil, &ConfigError{"max running", "negative"}
	case cfg.MaxQueue < 0:
		return nil, &ConfigError{"max queue", "negative"}
	case cfg.MaxQueuedTokens < 0:
		return nil, &ConfigError{"max queued tokens", "negative"}
	case cfg.MaxQueuedTokens > 0 && personas[cfg.Persona].eng.Shedding.TokensFlag == "":
		return nil, &ConfigError{"max queued tokens", fmt.Sprintf("the %s persona's engine has no bound on queued prompt tokens (vLLM's --max-num-queued-tokens)", cfg.Persona)}
	case !(cfg.FailRate >= 0 && cfg.FailRate <= 1):
		return nil, &ConfigError{"fail rate", fmt.Sprintf("%v is not in [0, 1]", cfg.FailRate)}
	case !(cfg.WordErrorRate >= 0 && cfg.WordErrorRate <= 1):
		return nil, &ConfigError{"word error rate", fmt.Sprintf("%v is not in [0, 1]", cfg.WordErrorRate)}
	case !(cfg.StreamFailRate >= 0 && cfg.StreamFailRate <= 1):
		return nil, &ConfigError{"stream fail rate", fmt.Sprintf("%v is not in [0, 1]", cfg.StreamFailRate)}
	case !(cfg.StreamCutRate >= 0 && cfg.StreamCutRate <= 1):
		return nil, &ConfigError{"stream cut rate", fmt.Sprintf("%v is not in [0, 1]", cfg.StreamCutRate)}
	case cfg.OTLPProtocol != "" && cfg.OTLPProtocol != OTLPGRPC && cfg.OTLPProtocol != OTLPHTTP:
		return nil, &ConfigError{"otlp protocol", fmt.Sprintf("%q: want %s or %s", cfg.OTLPProtocol, OTLPGRPC, OTLPHTTP)}
	case cfg.OTLPEndpoint != "" && !otlpPersonas[cfg.Persona]:
		// SGLang-Omni has no OpenTelemetry export; its per-request
		// evidence is the request profiler (run --server-events).
		return nil, &ConfigError{"otlp traces endpoint", fmt.Sprintf("the %s persona exports no OpenTelemetry spans (SGLang-Omni has no --otlp-traces-endpoint; its request profiler is its per-request evidence: run --server-events)", cfg.Persona)}
	case cfg.SGLangMetrics != "" && cfg.SGLangMetrics != SGLangHTTPMetrics && cfg.SGLangMetrics != SGLangRuntimeMetrics:
		return nil, &ConfigError{"sglang metrics", fmt.Sprintf("%q: want %s or %s", cfg.SGLangMetrics, SGLangHTTPMetrics, SGLangRuntimeMetrics)}
	case cfg.SGLangMetrics == SGLangRuntimeMetrics && cfg.Persona != PersonaSGLangOmni:
		return nil, &ConfigError{"sglang metrics", "only the sglang-omni persona has SGLang-Omni's metric designs"}
	case cfg.ProfilerDir != "" && !profilerPersonas[cfg.Persona]:
		return nil, &ConfigError{"profiler dir", fmt.Sprintf("the %s persona has no request profiler (SGLang-Omni's /start_request_profile; vLLM's per-request evidence is its OpenTelemetry spans: --otlp-traces-endpoint)", cfg.Persona)}
	}
	for i, c := range cfg.Corpus {
		if _, err := parseWAV(c.Audio); err != nil {
			return nil, &ConfigError{fmt.Sprintf("corpus clip %d", i), err.Error()}
		}
	}
	s := &Server{
		cfg:     cfg,
		started: time.Now(),
		index:   newIndex(cfg.Corpus),
		admission: admission{max: cfg.MaxRunning, maxQueue: cfg.MaxQueue, inFlight: personas[cfg.Persona].eng.Shedding.InFlight,
			maxTokens: cfg.MaxQueuedTokens},
		metrics: newMetrics(personas[cfg.Persona].eng.Metrics.Stages, cfg.MetricsLag),
		cache:   make(map[digest]string),
	}
	if sh := personas[cfg.Persona].speech; sh != nil && sh.running > 0 {
		s.speechAdmission = admission{max: sh.running, maxQueue: sh.queued}
	}
	s.routes()
	return s, nil
}

// Config returns the configuration in effect, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.cfg.SGLangMetrics == SGLangRuntimeMetrics && r.URL.Path == engine.TranscriptionsPath {
		s.serveASRCounted(w, r)
		return
	}
	countHTTP := s.p().countsHTTP() && r.URL.Path != "/metrics" &&
		!(r.URL.Path == "/v1/audio/speech" && s.p().speech != nil && s.p().speech.uncounted)
	if s.cfg.RequestLog == nil && !countHTTP {
		s.mux.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	var once sync.Once
	var d time.Duration
	var inner *http.Request // the request the mux routed (its Pattern set)
	count := func() {
		once.Do(func() {
			d = time.Since(start)
			if countHTTP {
				// SGLang-Omni's middleware labels a request with its route's path
				// template, "__unmatched__" when no route took it.
				route := "__unmatched__"
				if _, path, ok := strings.Cut(inner.Pattern, " "); ok && path != "/" {
					route = path
				}
				s.metrics.observeHTTP(r.Method, route, rec.status, d.Seconds())
			}
		})
	}
	// A stream counts itself before its last event (countNow): the
	// client may end the request on that event, before the handler
	// returns, and scrape /metrics at once.
	inner = r.WithContext(context.WithValue(r.Context(), countKey{}, count))
	s.mux.ServeHTTP(rec, inner)
	count()
	if s.cfg.RequestLog != nil {
		s.logMu.Lock()
		fmt.Fprintf(s.cfg.RequestLog, "sim: %s %s %d %.2fms\n", r.Method, r.URL.Path, rec.status, float64(d.Microseconds())/1000)
		s.logMu.Unlock()
	}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	p := s.p()
	m.HandleFunc("POST /v1/audio/transcriptions", s.ready(s.transcribe))
	if p.speech != nil {
		m.HandleFunc("POST /v1/audio/speech", s.ready(s.speech))
		m.HandleFunc("GET /v1/audio/voices", s.ready(s.speechVoices))
	}
	if p.chat != nil {
		m.HandleFunc("POST /v1/chat/completions", s.ready(s.chat))
	}
	if _, ok := s.realtimeProtocol(); ok {
		m.HandleFunc("GET "+engine.RealtimePath, s.ready(s.realtimeSession))
	}
	m.HandleFunc("GET /health", s.ready(func(w http.ResponseWriter, r *http.Request) {
		if p.eng.Health.JSON {
			writeJSON(w, http.StatusOK, s.sglangOmniHealth())
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	m.HandleFunc("GET /v1/models", s.ready(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, s.models()) }))
	if !s.cfg.NoMetrics {
		m.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { s.writeMetrics(w) })
	}
	// The self-description paths the engine serves (its Knobs.Served).
	served := p.eng.Knobs.Served
	if slices.Contains(served, "/version") {
		m.HandleFunc("GET /version", s.ready(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"version": p.eng.Version})
		}))
	}
	if slices.Contains(served, "/server_info?config_format=json") {
		if s.cfg.DevMode {
			m.HandleFunc("GET /server_info", s.ready(func(w http.ResponseWriter, r *http.Request) {
				switch f := r.URL.Query().Get("config_format"); f {
				case "", "text", "json":
					writeJSON(w, http.StatusOK, s.vllmServerInfo(f == "json"))
				default:
					writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{
						"type": "literal_error", "loc": []string{"query", "config_format"}, "msg": "Input should be 'text' or 'json'", "input": f}}})
				}
			}))
		}
	}
	s.profilerRoutes(m)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { writeNotFound(w) })
	s.mux = m
}

// ready answers 503 until ReadyDelay has passed since New.
func (s *Server) ready(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.ReadyDelay <= 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if time.Since(s.started) < s.cfg.ReadyDelay {
			s.writeError(w, http.StatusServiceUnavailable, "model is still loading")
			return
		}
		h(w, r)
	}
}

// draw returns a deterministic number in [0, 1) for the n-th request.
func (s *Server) draw(n uint64) float64 {
	return float64(s.bits(n)>>11) / (1 << 53)
}

// bits are 64 pseudo-random bits for (Seed, n).
func (s *Server) bits(n uint64) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], s.cfg.Seed)
	binary.LittleEndian.PutUint64(b[8:], n)
	h := sha256.Sum256(b[:])
	return binary.LittleEndian.Uint64(h[:8])
}

// countKey holds, in a request's context, the function that counts the
// request in the HTTP metrics (once).
type countKey struct{}

// countNow counts r in the HTTP metrics now, if ServeHTTP has not yet.
func countNow(r *http.Request) {
	if f, ok := r.Context().Value(countKey{}).(func()); ok {
		f()
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
