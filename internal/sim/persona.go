package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/engine"
)

// Version strings of releases that serve Qwen3-ASR, the ones the published
// comparison used (the engine table's rows): vLLM added Qwen3-ASR in PR
// #33410 (2026-01), so 0.11.0 (what the sim said before) could not have
// served it.
var (
	VLLMVersion       = mustEngine(engine.VLLM).Version
	SGLangOmniVersion = mustEngine(engine.SGLangOmni).Version
	// SGLangVersion is kept for callers of the old name.
	SGLangVersion = SGLangOmniVersion
)

// Engine-config values the personas report (what a real launch would show).
const (
	simMaxModelLen      = 65536
	simGPUMemoryUtil    = 0.9
	simBlockSize        = 16
	simMaxBatchedTokens = 8192
	simDType            = "bfloat16"
)

// Status codes the personas shed with when their queue is full (the
// engine table's Shedding): vLLM queues without bound by default; with
// --max-num-queued-reqs (MaxQueue) it refuses with 503. SGLang-Omni on
// /v1/audio/transcriptions answers HTTP 500 {"detail":"The request queue
// is full."} (QueueFullError, which only its TTS path maps to 503; 0.1.4
// said "request-build backlog is full ..."), bounded by
// --max_queued_requests (MaxQueue). Both refuse after reading the upload,
// not at once, and before a stream's headers.
var (
	ShedStatusVLLM   = mustEngine(engine.VLLM).Shedding.Status
	ShedStatusSGLang = mustEngine(engine.SGLangOmni).Shedding.Status
)

// Fact is one way a persona behaves like its engine, with the engine
// source (repository file@commit) it was read from.
type Fact = engine.Fact

// persona is one engine the sim imitates: its row of the engine table,
// read by value (never an if on the persona's name), and what only the
// simulator decides.
type persona struct {
	eng *engine.Engine
	// labels are the values the sim gives the engine's Metrics.Labels
	// (an assumption: "0", one engine, one stage, one replica).
	labels string
	// omniFamilies adds vLLM-Omni's vllm_omni:* pipeline families.
	omniFamilies bool
	// speech is how it serves POST /v1/audio/speech (speech.go), nil
	// when it serves none: the simulator's text-to-speech.
	speech *speechShape
	// chat is how it serves POST /v1/chat/completions (chat.go), nil
	// when it serves none.
	chat *chatShape
	// model is the served model name when Config.Model is empty ("":
	// DefaultModel).
	model string
	// metrics renders /metrics in the engine's families.
	metrics func(s *Server, p *persona, w http.ResponseWriter, m *counts, running, waiting int, model string)
}

// personas are the engines the sim imitates, by Config.Persona; a name
// the engine table does not have panics at start (mustEngine), and
// TestPersonasAreEngines checks every persona's row.
var personas = map[string]*persona{
	PersonaVLLM:       {eng: mustEngine(engine.VLLM), labels: `engine="0"`, metrics: (*Server).writeVLLMMetrics},
	PersonaVLLMOmni:   {eng: mustEngine(engine.VLLMOmni), labels: `replica="0",stage="0"`, omniFamilies: true, speech: vllmOmniSpeech, chat: vllmOmniChat, model: DefaultTTSModel, metrics: (*Server).writeVLLMMetrics},
	PersonaSGLangOmni: {eng: mustEngine(engine.SGLangOmni), speech: sglangOmniSpeech, chat: sglangOmniChat, metrics: (*Server).writeSGLangOmniMetrics},
}

// personaList names the personas in the engine table's order: "vllm,
// vllm-omni or sglang-omni".
func personaList() string {
	var names []string
	for _, n := range engine.Names() {
		if _, ok := personas[n]; ok {
			names = append(names, n)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func mustEngine(name string) *engine.Engine {
	e, ok := engine.ByName(name)
	if !ok {
		panic("sim: no engine " + name + " in internal/engine's table")
	}
	return e
}

// Facts returns the facts a persona reproduces, each with its source; nil
// for an unknown persona.
func Facts(name string) []Fact {
	if p, ok := personas[name]; ok {
		return append([]Fact(nil), p.eng.Facts...)
	}
	return nil
}

// countsHTTP says whether the engine's request counter counts HTTP
// answers (a status label: SGLang-Omni's middleware), which the sim then
// keeps per method, route and status.
func (p *persona) countsHTTP() bool {
	r := p.eng.Metrics.Requests
	return r != nil && r.StatusLabel != ""
}

func (s *Server) p() *persona { return personas[s.cfg.Persona] }

// openAIError is the OpenAI error envelope both engines use for some errors.
type openAIError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   any    `json:"param"`
	Code    any    `json:"code"`
}

func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowedError"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailableError"
	default:
		return "InternalServerError"
	}
}

// writeError answers with the engine's error shape: vLLM
// {"error":{"message","type","param","code"}}; SGLang-Omni FastAPI's
// {"detail": msg} (HTTPException).
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	if s.p().eng.Errors.Shape == engine.FastAPIDetail {
		writeJSON(w, status, map[string]any{"detail": msg})
		return
	}
	writeJSON(w, status, map[string]any{"error": openAIError{Message: msg, Type: errorType(status), Code: status}})
}

// writeModelNotFound answers a request for a model the server does not
// serve, as the engine's Errors.ModelNotFound says.
func (s *Server) writeModelNotFound(w http.ResponseWriter, model string) {
	nf := s.p().eng.Errors.ModelNotFound
	quoted := model
	if nf.Quote == engine.PyRepr {
		quoted = pyRepr(model)
	} else {
		quoted = "`" + model + "`"
	}
	e := openAIError{Message: fmt.Sprintf(nf.Format, quoted), Type: nf.Type, Code: http.StatusNotFound}
	if nf.Param != "" {
		e.Param = nf.Param
	}
	if nf.Code != "" {
		e.Code = nf.Code
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"error": e})
}

// pyRepr quotes s as Python's repr does for a plain string.
func pyRepr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// writeNotFound is FastAPI's answer for a path no route serves (both
// engines are FastAPI apps).
func writeNotFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func (s *Server) models() any {
	type model struct {
		ID          string `json:"id"`
		Object      string `json:"object"`
		Created     int64  `json:"created"`
		OwnedBy     string `json:"owned_by"`
		Root        string `json:"root"`
		Parent      any    `json:"parent"`
		MaxModelLen int    `json:"max_model_len,omitempty"`
	}
	mi := s.p().eng.Models
	m := model{ID: s.cfg.Model, Object: "model", Created: s.started.Unix(), OwnedBy: mi.OwnedBy, Root: s.cfg.Model}
	if mi.MaxModelLen {
		m.MaxModelLen = simMaxModelLen
	}
	if mi.CreatedZero {
		m.Created = 0
	}
	// The simulator names itself (engine.SimulatorField): a run against
	// it must not pass for one against the engine it imitates.
	return struct {
		Object   string         `json:"object"`
		Data     []model        `json:"data"`
		Sim      string         `json:"benchseal_sim"`
		Settings map[string]any `json:"benchseal_sim_settings"`
	}{"list", []model{m}, s.cfg.Persona, s.settings()}
}

// settings are the simulator's own settings as its /v1/models publishes
// them (engine.SimulatorSettingsField, keyed as engine.SimSettings): the
// limits in effect (MaxRunning after the engine's default; a limit it
// does not bound "unlimited"), latencies in milliseconds, rates, the
// cache, the chunk length asked for ("engine default" without one). Every key of engine.SimSettings is there (TestPublishesSettings).
func (s *Server) settings() map[string]any {
	c := s.cfg
	lim := func(n int) any {
		if n <= 0 {
			return "unlimited"
		}
		return n
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	// chunk_seconds is the setting, not its engine's clip length (an
	// engine's own chunking is no knob of the comparison).
	var chunkV any = c.ChunkSeconds
	switch {
	case c.ChunkSeconds == 0:
		chunkV = "engine default"
	case c.ChunkSeconds < 0:
		chunkV = "never"
	}
	return map[string]any{
		"persona":             c.Persona,
		"max_running":         lim(c.MaxRunning),
		"max_queue":           lim(c.MaxQueue),
		"max_queued_tokens":   lim(c.MaxQueuedTokens),
		"base_latency_ms":     ms(c.BaseLatency),
		"per_audio_second_ms": ms(c.PerAudioSecond),
		"fail_rate":           c.FailRate,
		"stream_fail_rate":    c.StreamFailRate,
		"stream_cut_rate":     c.StreamCutRate,
		"word_error_rate":     c.WordErrorRate,
		"cache":               c.Cache,
		"chunk_seconds":       chunkV,
		"metrics_lag_ms":      ms(c.MetricsLag),
		"raw_prefix":          c.RawPrefix,
		"ready_delay_ms":      ms(c.ReadyDelay),
		"seed":                c.Seed,
	}
}

// limit reports a limit for the self-description: null when unlimited.
func limit(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// maxNumSeqs is what the vllm persona says its max_num_seqs is.
func (s *Server) maxNumSeqs() any { return limit(s.cfg.MaxRunning) }

// vllmServerInfo is vLLM's dev-mode /server_info: vllm_config is
// str(VllmConfig), or with ?config_format=json the config as nested JSON
// (scheduler_config.max_num_seqs, cache_config.gpu_memory_utilization,
// cache_config.enable_prefix_caching, model_config.dtype, which pydantic
// writes as "torch.bfloat16"), next to vllm_env and system_env.
func (s *Server) vllmServerInfo(jsonConfig bool) any {
	var cfg any
	if jsonConfig {
		cfg = map[string]any{
			"model_config": map[string]any{"model": s.cfg.Model, "served_model_name": s.cfg.Model,
				"dtype": "torch." + simDType, "max_model_len": simMaxModelLen},
			"cache_config": map[string]any{"block_size": simBlockSize, "gpu_memory_utilization": simGPUMemoryUtil,
				"enable_prefix_caching": s.cfg.Cache, "cache_dtype": "auto"},
			"scheduler_config": map[string]any{"max_num_seqs": s.maxNumSeqs(), "max_num_batched_tokens": simMaxBatchedTokens,
				// PR #49445's SchedulerConfig fields: null when unbounded.
				"max_num_queued_reqs": limit(s.cfg.MaxQueue), "max_num_queued_tokens": limit(s.cfg.MaxQueuedTokens)},
			"parallel_config": map[string]any{"tensor_parallel_size": 1},
		}
	} else {
		cfg = fmt.Sprintf("model=%s, served_model_name=%s, dtype=torch.%s, max_seq_len=%d, tensor_parallel_size=1, "+
			"enable_prefix_caching=%s, simulated=True", pyRepr(s.cfg.Model), pyRepr(s.cfg.Model), simDType, simMaxModelLen, pyBool(s.cfg.Cache))
	}
	return map[string]any{
		"vllm_config": cfg,
		"vllm_env":    map[string]any{"VLLM_SERVER_DEV_MODE": true},
		"system_env":  map[string]any{"vllm_version": VLLMVersion},
	}
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// sglangOmniHealth is SGLang-Omni's /health: "status" then the
// coordinator's health fields.
func (s *Server) sglangOmniHealth() any {
	running, waiting := s.admission.state()
	return map[string]any{"status": "healthy", "running": true, "stages": []string{"asr"},
		"total_requests": running + waiting, "pending_completions": 0}
}

// writeMetrics writes /metrics with the persona's own metric names and
// labels.
func (s *Server) writeMetrics(w http.ResponseWriter) {
	m := s.metrics.snapshot()
	running, waiting := s.admission.state()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	model := `model_name="` + escapeLabel(s.cfg.Model) + `"`
	p := s.p()
	p.metrics(s, p, w, &m, running, waiting, model)
}

// writeVLLMMetrics renders vLLM's families (vllm/v1/metrics/loggers.py),
// labelled as the persona's engine labels them, and vLLM-Omni's
// vllm_omni:* families where the persona adds them.
func (s *Server) writeVLLMMetrics(pe *persona, w http.ResponseWriter, m *counts, running, waiting int, model string) {
	el := pe.labels
	p := &promWriter{w: w, labels: el + "," + model}
	p.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", running)
	p.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting)
	p.counter(engine.VLLMPrefixCacheQueries, "Prefix cache queries, in terms of number of queried tokens.", m.prefixQueries)
	p.counter(engine.VLLMPrefixCacheHits, "Prefix cache hits, in terms of number of cached tokens.", m.prefixHits)
	p.counter(engine.VLLMMMCacheQueries, "Multi-modal cache queries, in terms of number of queried items.", m.mmQueries)
	p.counter(engine.VLLMMMCacheHits, "Multi-modal cache hits, in terms of number of cached items.", m.mmHits)
	p.counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", m.promptTokensSum)
	p.counter("vllm:generation_tokens_total", "Number of generation tokens processed.", m.completionSum)
	p.family("vllm:request_success_total", "counter", "Count of successfully processed requests.")
	for _, reason := range []string{"abort", "length", "stop"} {
		v := int64(0)
		if reason == "stop" {
			v = m.succeeded
		}
		p.printf("vllm:request_success_total{%s,finished_reason=%q,%s} %d\n", el, reason, model, v)
	}
	for _, f := range pe.eng.Metrics.Stages {
		if h := m.stages[f.Family]; h != nil && strings.HasPrefix(f.Family, pe.eng.Metrics.Prefix) {
			p.histogram(f.Family, stageHelp[f.Stage], h)
		}
	}
	// CacheConfig.metrics_info(): every field as str(value), plus engine;
	// no model_name.
	p.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
	p.printf("vllm:cache_config_info{block_size=\"%d\",cache_dtype=\"auto\",enable_prefix_caching=%q,%s,gpu_memory_utilization=%q} 1.0\n",
		simBlockSize, pyBool(s.cfg.Cache), el, strconv.FormatFloat(simGPUMemoryUtil, 'f', -1, 64))
	if pe.omniFamilies {
		o := &promWriter{w: w, labels: model}
		o.gauge("vllm_omni:num_requests_running", "Number of requests running in the pipeline.", running)
		o.gauge("vllm_omni:num_requests_waiting", "Number of requests waiting in the pipeline.", waiting)
		o.family("vllm_omni:requests_success_total", "counter", "Finished pipeline requests by finished_reason.")
		o.printf("vllm_omni:requests_success_total{finished_reason=\"stop\",%s} %d\n", model, m.succeeded)
		o.counter("vllm_omni:prompt_tokens_total", "Prompt tokens over all stages.", m.promptTokensSum)
		o.counter("vllm_omni:generation_tokens_total", "Generation tokens over all stages.", m.completionSum)
		for _, f := range pe.eng.Metrics.Stages {
			if h := m.stages[f.Family]; h != nil && strings.HasPrefix(f.Family, "vllm_omni:") {
				o.histogram(f.Family, "Pipeline-global end-to-end request latency in seconds (user arrival to complete response).", h)
			}
		}
	}
	if pe.speech != nil && pe.speech.audioFamilies {
		writeOmniAudio(&promWriter{w: w, labels: model + "," + el}, m)
	}
	if _, ok := pe.eng.Task(engine.TaskRealtime); ok {
		// The middleware's families carry no labels.
		ws := &promWriter{w: w}
		ws.gauge(engine.VLLMWebSocketActive, "Number of active WebSocket connections.", m.wsActive)
		ws.counter(engine.VLLMWebSocketTotal, "Total number of WebSocket connections.", m.wsTotal)
		ws.histogram(engine.VLLMWebSocketDuration, "Duration of WebSocket connections in seconds.", m.wsDuration)
	}
}

// writeOmniAudio renders vLLM-Omni's audio families
// (vllm-project/vllm-omni vllm_omni/metrics/modality.py@d6240742), labelled
// model_name, stage and replica (the simulator's stage "0", replica "0":
// an assumption, as for vLLM's families). Those observed on
// /v1/audio/speech have samples: audio_duration_s and audio_rtf
// (histograms), audio_frames_total (counter), each at a request's finish
// (observe_modality_at_finalize). The others are declared at import and
// shown with no sample, as prometheus_client shows a labelled family no
// request has observed: audio_ttfp_s, audio_underrun_s and
// audio_continuity_ok_total are observed only on the chat path
// (serving_chat.py@d6240742), audio_skipped_requests_total only for a 200
// without audio, which the simulator never answers.
func writeOmniAudio(o *promWriter, m *counts) {
	o.family("vllm_omni:audio_ttfp_s", "histogram", "Time from request arrival to first audio packet/frame, in seconds.")
	o.histogram("vllm_omni:audio_duration_s", "Generated audio content duration in seconds (audio_frames / sample_rate).", m.audioDuration)
	o.histogram("vllm_omni:audio_rtf", "Audio real-time factor (stage_gen_time_s / audio_duration_s); streaming TTS requires < 1.", m.audioRTF)
	o.counter("vllm_omni:audio_frames_total", "Cumulative audio frame count; per-model rate (not summable across models). Throughput recovered via rate().", m.audioFrames)
	o.family("vllm_omni:audio_underrun_s", "histogram", "Per-request worst-case player-deficit in seconds (max time the player ran out of buffered audio). > 0 indicates listener experienced silent gaps.")
	o.family("vllm_omni:audio_continuity_ok_total", "counter", "Incremented when the request's worst underrun stayed below threshold_ms. Pair with requests_success_total to compute streaming-continuity health rate.")
	o.family("vllm_omni:audio_skipped_requests_total", "counter", "Silent-loss counter — code2wav rejected malformed codec input and returned 200 OK with empty audio.")
}

// stageHelp is vLLM's documentation of its stage histograms
// (vllm/v1/metrics/loggers.py@005a810b).
var stageHelp = map[string]string{
	engine.StageQueue:     "Histogram of time spent in WAITING phase for request.",
	engine.StagePrefill:   "Histogram of time spent in PREFILL phase for request.",
	engine.StageDecode:    "Histogram of time spent in DECODE phase for request.",
	engine.StageInference: "Histogram of time spent in RUNNING phase for request.",
	engine.StageTTFT:      "Histogram of time to first token in seconds.",
	engine.StageE2E:       "Histogram of e2e request latency in seconds.",
}

// PrefillShare is the share of a request's service time the sim counts
// as prefill (encoder and the prompt's forward, up to the first token);
// the rest is decode (doc.go, "Server-side stages").
const PrefillShare = 0.25

// writeSGLangOmniMetrics renders serve/metrics.py's families: the
// coordinator gauges, then the HTTP middleware's counter and histogram,
// labels sorted by name, values as Python's format_value writes them; or,
// with SGLangRuntimeMetrics, the runtime design's (runtime_metrics.go).
func (s *Server) writeSGLangOmniMetrics(_ *persona, w http.ResponseWriter, m *counts, running, waiting int, model string) {
	p := &promWriter{w: w}
	if s.cfg.SGLangMetrics == SGLangRuntimeMetrics {
		writeSGLangOmniRuntime(p, m, running)
		return
	}
	p.family("sglang_omni_pipeline_running", "gauge", "Whether the Omni coordinator reports the pipeline as running.")
	p.printf("sglang_omni_pipeline_running{%s} 1.0\n", model)
	p.family("sglang_omni_pipeline_tracked_requests", "gauge", "Number of currently tracked requests according to the Omni coordinator health snapshot.")
	p.printf("sglang_omni_pipeline_tracked_requests{%s} %s\n", model, pyFloat(float64(running+waiting)))
	p.family("sglang_omni_pipeline_pending_completions", "gauge", "Number of pending completions reported by the Omni coordinator.")
	p.printf("sglang_omni_pipeline_pending_completions{%s} 0.0\n", model)
	p.family("sglang_omni_request_states", "gauge", "Number of Omni requests by coordinator state.")
	p.printf("sglang_omni_request_states{%s,state=\"running\"} %s\n", model, pyFloat(float64(running)))
	p.printf("sglang_omni_request_states{%s,state=\"waiting\"} %s\n", model, pyFloat(float64(waiting)))
	p.family("sglang_omni_stage_present", "gauge", "Whether a stage is present in the Omni coordinator health snapshot.")
	p.printf("sglang_omni_stage_present{%s,stage=\"asr\"} 1.0\n", model)
	p.family("sglang_omni_http_requests_total", "counter", "Total number of HTTP requests handled by the Omni API server.")
	for _, k := range m.httpKeys() {
		p.printf("sglang_omni_http_requests_total{method=%q,%s,route=%q,status=\"%d\"} %s\n", k.method, model, k.route, k.status, pyFloat(float64(m.http[k])))
	}
	p.family("sglang_omni_http_request_duration_seconds", "histogram", "HTTP handler duration in seconds for the Omni API server. For streaming responses, this does not represent full end-to-end stream duration.")
	for _, r := range m.routeKeys() {
		d := m.httpDur[r]
		base := fmt.Sprintf("method=%q,%s,route=%q", r.method, model, r.route)
		for i, le := range sglangDurationBuckets {
			p.printf("sglang_omni_http_request_duration_seconds_bucket{%s,le=\"%s\"} %s\n", base, strconv.FormatFloat(le, 'g', -1, 64), pyFloat(float64(d.buckets[i])))
		}
		p.printf("sglang_omni_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} %s\n", base, pyFloat(float64(d.count)))
		p.printf("sglang_omni_http_request_duration_seconds_count{%s} %s\n", base, pyFloat(float64(d.count)))
		p.printf("sglang_omni_http_request_duration_seconds_sum{%s} %s\n", base, pyFloat(d.sum))
	}
}

// pyFloat writes v as serve/metrics.py's format_value does: "0.0", "3.0",
// or 17 significant digits.
func pyFloat(v float64) string {
	switch {
	case v == 0:
		return "0.0"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 17, 64)
}

// CacheHelp is --cache's help: what the cache does and, per persona, the
// /metrics counters its hits grow, from the engine table (an engine with no
// cache counter, as SGLang-Omni, counts nothing).
func CacheHelp() string {
	var lists []string          // counter lists, in persona order
	by := map[string][]string{} // counter list -> personas
	for _, n := range engine.Names() {
		p, ok := personas[n]
		if !ok {
			continue
		}
		var hits []string
		for _, c := range p.eng.Metrics.CacheCounters {
			if c.Hit && c.Deprecated == "" {
				hits = append(hits, c.Name)
			}
		}
		k := strings.Join(hits, ", ")
		if _, seen := by[k]; !seen {
			lists = append(lists, k)
		}
		by[k] = append(by[k], n)
	}
	s := "answer identical bytes from a cache at once"
	for _, k := range lists {
		who := strings.Join(by[k], " and ")
		if k == "" {
			s += "; " + who + ": not counted (the engine has no cache counter)"
		} else {
			s += "; " + who + ": counted in /metrics (" + k + ")"
		}
	}
	return s
}
