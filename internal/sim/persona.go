package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// Version strings of releases that serve Qwen3-ASR, the ones the published
// comparison used: vLLM added Qwen3-ASR in PR #33410 (2026-01), so 0.11.0
// (what the sim said before) could not have served it.
const (
	VLLMVersion       = "0.28.0"
	SGLangOmniVersion = "0.1.4"
	// SGLangVersion is kept for callers of the old name.
	SGLangVersion = SGLangOmniVersion
)

// Engine-config values the personas report (what a real launch would show).
const (
	simMaxModelLen        = 65536
	simGPUMemoryUtil      = 0.9
	simBlockSize          = 16
	simMaxBatchedTokens   = 8192
	simDType              = "bfloat16"
	sglangOmniMaxPending  = 16 // request_build_max_pending, qwen3_asr/config.py
	sglangOmniMaxNewToken = 128
)

// Status codes the personas shed with when their queue is full. vLLM
// queues without bound by default; with --max-num-queued-reqs (MaxQueue)
// it refuses with 503. SGLang-Omni 0.1.4's scheduler raised "request-build
// backlog is full", which its transcription endpoint turned into HTTP 500
// {"detail":...} (what was seen at concurrency 64); newer releases answer
// 503 "The request queue is full." (sglang_omni/admission.py @75c59a20).
// Both refuse after reading the upload, not at once.
const (
	ShedStatusVLLM   = http.StatusServiceUnavailable
	ShedStatusSGLang = http.StatusInternalServerError
)

// Fact is one way a persona behaves like its engine, with the engine
// source (repository file@commit) it was read from.
type Fact struct {
	What   string
	Source string
}

// persona is one engine the sim imitates: every way the personas differ is
// a field here, read by value, never an if on the persona's name.
type persona struct {
	name    string
	version string
	// textAsJSON: response_format=text is answered with the JSON object
	// {"text","usage"} and Content-Type application/json.
	textAsJSON bool
	// verboseJSON: verbose_json is served (else 400).
	verboseJSON bool
	// openAIEvents: streams are transcript.text.delta/done events (else
	// vLLM's transcription.chunk chunks).
	openAIEvents bool
	// streamIDHeader: a stream's response carries the server-made id in
	// X-Request-Id.
	streamIDHeader bool
	// takesRequestID: the X-Request-Id of the request becomes the id
	// (vLLM: transcribe-<id>).
	takesRequestID bool
	idPrefix       string
	healthJSON     bool // /health answers {"status":"healthy",...}, else an empty 200
	// engineLabels replace vLLM's engine="0" on its vllm:* families
	// (vLLM-Omni: stage, replica); omniFamilies adds vLLM-Omni's
	// vllm_omni:* pipeline families.
	engineLabels string
	omniFamilies bool
	shedStatus   int
	shedMessage  string
	facts        []Fact
}

// personas are the engines the sim imitates, by Config.Persona.
var personas = map[string]*persona{
	PersonaVLLM: {
		name: PersonaVLLM, version: VLLMVersion, textAsJSON: true, takesRequestID: true, idPrefix: "transcribe-",
		shedStatus: ShedStatusVLLM, shedMessage: "The server is overloaded: too many requests queued.",
		engineLabels: `engine="0"`, facts: vllmFacts,
	},
	// vLLM-Omni serves transcriptions through vLLM's API server (the same
	// shapes), but relabels every vllm:* family's engine as stage and
	// replica and adds vllm_omni:* families.
	PersonaVLLMOmni: {
		name: PersonaVLLMOmni, version: VLLMVersion, textAsJSON: true, takesRequestID: true, idPrefix: "transcribe-",
		shedStatus: ShedStatusVLLM, shedMessage: "The server is overloaded: too many requests queued.",
		engineLabels: `replica="0",stage="0"`, omniFamilies: true,
		facts: append(append([]Fact(nil), vllmFacts...), vllmOmniFacts...),
	},
	PersonaSGLangOmni: {
		name: PersonaSGLangOmni, version: SGLangOmniVersion, verboseJSON: true, openAIEvents: true, streamIDHeader: true,
		idPrefix: "transcription-", healthJSON: true,
		shedStatus: ShedStatusSGLang, shedMessage: fmt.Sprintf("request-build backlog is full (backlog_limit=%d)", sglangOmniMaxPending),
		facts: sglangOmniFacts,
	},
}

// Facts returns the facts a persona reproduces, each with its source; nil
// for an unknown persona.
func Facts(name string) []Fact {
	if p, ok := personas[name]; ok {
		return append([]Fact(nil), p.facts...)
	}
	return nil
}

// vllmFacts: vllm-project/vllm, the files and commits read.
var vllmFacts = []Fact{
	{"response_format=text is answered {\"text\",\"usage\":{\"type\":\"duration\",\"seconds\"}} as application/json", "vllm/entrypoints/openai/speech_to_text/api_router.py@029329a8, speech_to_text.py@024e0772 (vLLM issue #49095)"},
	{"a stream is transcription.chunk chunks with id transcribe-<X-Request-Id>, a last chunk with finish_reason, then data: [DONE]", "vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772"},
	{"a stream that fails midway sends data: {\"error\":{...}} then data: [DONE]", "vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772 (create_streaming_error_response)"},
	{"the request id is the X-Request-Id header, else a random uuid", "vllm/entrypoints/openai/engine/serving.py@619e4b31 (_base_request_id)"},
	{"verbose_json with Qwen3-ASR is 400 (supports_segment_timestamp=False)", "vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772"},
	{"errors are {\"error\":{\"message\",\"type\",\"param\",\"code\"}}; an unknown model is 404 NotFoundError \"The model `X` does not exist.\"", "vllm/entrypoints/openai/engine/serving.py@619e4b31 (_check_model)"},
	{"/server_info only with VLLM_SERVER_DEV_MODE=1: {\"vllm_config\": str or, with ?config_format=json, nested JSON, \"vllm_env\", \"system_env\"}", "vllm/entrypoints/serve/instrumentator/server_info.py@4652ef5d"},
	{"/metrics: vllm:* families labelled model_name, engine; vllm:request_success_total{finished_reason}; vllm:cache_config_info{<CacheConfig fields>,engine} 1 without model_name", "vllm/v1/metrics/loggers.py@005a810b (log_metrics_info, make_per_engine)"},
	{"/health is 200 with an empty body; /version answers {\"version\"}", "vllm/entrypoints/serve/instrumentator/health.py@98b137c6 (Response(status_code=200)); /version: instrumentator/basic.py (not re-read)"},
	{"the queue is unbounded by default; --max-num-queued-reqs refuses with 503", "issue 10 / ENGINES.md (not re-read here)"},
}

// vllmOmniFacts: vllm-project/vllm-omni, what differs from vLLM.
var vllmOmniFacts = []Fact{
	{"/v1/audio/transcriptions is vLLM's (OmniServingTranscription subclasses OpenAIServingTranscription; only verbose_json word alignment with a qwen3_asr_align stage is added, not modelled)", "vllm_omni/entrypoints/openai/serving_transcription.py@63ab2f95"},
	{"every vllm:* family's engine label becomes stage and replica (model_name, stage, replica, ...), vllm:cache_config_info included", "vllm_omni/metrics/stat_logger.py@8ad4f506 (OmniPrometheusStatLogger, _rewrite_labelnames)"},
	{"vllm_omni:num_requests_running/_waiting{model_name}, vllm_omni:requests_success_total{model_name,finished_reason}, vllm_omni:prompt_tokens_total, vllm_omni:generation_tokens_total, vllm_omni:e2e_request_latency_s", "vllm_omni/metrics/definitions.py@641dfaf1"},
	{"the stage label is the stage's name in the deployment's stage config; the sim says \"0\" (not read for Qwen3-ASR)", "assumption"},
}

// sglangOmniFacts: sgl-project/sglang-omni, the files and commits read.
var sglangOmniFacts = []Fact{
	{"response_format=text is text/plain (PlainTextResponse); json is {\"text\",\"usage\":{\"type\":\"duration\",\"seconds\"}}", "sglang_omni/serve/speech_to_text.py@070fc3b5 (assemble_speech_to_text_response)"},
	{"a stream is transcript.text.delta events, transcript.text.done {text, usage}, then data: [DONE], with header X-Request-Id: transcription-<uuid>", "sglang_omni/serve/speech_to_text.py@070fc3b5, transcriptions.py@0ac0a86e"},
	{"a stream that fails midway sends data: {\"type\":\"error\",\"error\":{\"message\"}} and closes without [DONE]", "sglang_omni/serve/speech_to_text.py@070fc3b5 (speech_to_text_stream)"},
	{"an unknown model is 404 {\"error\":{\"message\":\"The model 'X' does not exist.\",\"type\":\"invalid_request_error\",\"param\":\"model\",\"code\":\"model_not_found\"}}", "sglang_omni/serve/speech_errors.py@0ac0a86e (resolve_served_model)"},
	{"other errors are FastAPI {\"detail\":...}; a missing file is 422", "sglang_omni/serve/transcriptions.py@0ac0a86e (HTTPException), FastAPI validation"},
	{"no /server_info, /get_server_info, /get_model_info or /version: knobs are launch arguments", "sglang_omni/serve/openai_api.py@022b6a3d, launcher.py@03c8f159 (ENGINES.md); openai_api.py@2489a10e"},
	{"Qwen3-ASR defaults: max_running_requests 32, max_new_tokens 128, request_build_max_workers 2, request_build_max_pending 16", "sglang_omni/models/qwen3_asr/config.py@fe0cbea9"},
	{"/metrics: sglang_omni_pipeline_*, sglang_omni_request_states{state}, sglang_omni_stage_present{stage}, sglang_omni_http_requests_total{method,model_name,route,status}, sglang_omni_http_request_duration_seconds; no cache counter", "sglang_omni/serve/metrics.py@0641581e"},
	{"/health is {\"status\":\"healthy\", ...coordinator fields}", "sglang_omni/serve/openai_api.py@2489a10e (_register_health)"},
	{"overload: 0.1.4's scheduler answered 500 {\"detail\":\"request-build backlog is full ...\"} after the upload; newer ones 503 \"The request queue is full.\"", "sglang_omni/admission.py@75c59a20 (newer); the 0.1.4 message from issue 10 (not found in the index)"},
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

// writeError answers with the persona's error shape: vLLM
// {"error":{"message","type","param","code"}}; SGLang-Omni FastAPI's
// {"detail": msg} (HTTPException).
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	if s.p().openAIEvents { // SGLang-Omni: FastAPI HTTPException
		writeJSON(w, status, map[string]any{"detail": msg})
		return
	}
	writeJSON(w, status, map[string]any{"error": openAIError{Message: msg, Type: errorType(status), Code: status}})
}

// writeModelNotFound answers a request for a model the server does not
// serve, as each engine does.
func (s *Server) writeModelNotFound(w http.ResponseWriter, model string) {
	if s.p().openAIEvents {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": openAIError{
			Message: fmt.Sprintf("The model %s does not exist.", pyRepr(model)), Type: "invalid_request_error",
			Param: "model", Code: "model_not_found"}})
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"error": openAIError{
		Message: fmt.Sprintf("The model `%s` does not exist.", model), Type: "NotFoundError", Code: http.StatusNotFound}})
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

func (s *Server) ownedBy() string {
	if s.p().openAIEvents {
		return "sglang-omni"
	}
	return "vllm"
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
	m := model{ID: s.cfg.Model, Object: "model", Created: s.started.Unix(), OwnedBy: s.ownedBy(), Root: s.cfg.Model}
	if !s.p().openAIEvents {
		m.MaxModelLen = simMaxModelLen
	} else {
		m.Created = 0
	}
	return struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{m}}
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
			"scheduler_config": map[string]any{"max_num_seqs": s.maxNumSeqs(), "max_num_batched_tokens": simMaxBatchedTokens},
			"parallel_config":  map[string]any{"tensor_parallel_size": 1},
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
	if s.p().openAIEvents {
		s.writeSGLangOmniMetrics(w, &m, running, waiting, model)
		return
	}
	el := s.p().engineLabels
	p := &promWriter{w: w, labels: el + "," + model}
	p.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", running)
	p.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting)
	p.counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", m.prefixQueries)
	p.counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", m.prefixHits)
	p.counter("vllm:mm_cache_queries_total", "Multi-modal cache queries, in terms of number of queried items.", m.mmQueries)
	p.counter("vllm:mm_cache_hits_total", "Multi-modal cache hits, in terms of number of cached items.", m.mmHits)
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
	p.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", &m)
	// CacheConfig.metrics_info(): every field as str(value), plus engine;
	// no model_name.
	p.family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig")
	p.printf("vllm:cache_config_info{block_size=\"%d\",cache_dtype=\"auto\",enable_prefix_caching=%q,%s,gpu_memory_utilization=%q} 1.0\n",
		simBlockSize, pyBool(s.cfg.Cache), el, strconv.FormatFloat(simGPUMemoryUtil, 'f', -1, 64))
	if s.p().omniFamilies {
		o := &promWriter{w: w, labels: model}
		o.gauge("vllm_omni:num_requests_running", "Number of requests running in the pipeline.", running)
		o.gauge("vllm_omni:num_requests_waiting", "Number of requests waiting in the pipeline.", waiting)
		o.family("vllm_omni:requests_success_total", "counter", "Finished pipeline requests by finished_reason.")
		o.printf("vllm_omni:requests_success_total{finished_reason=\"stop\",%s} %d\n", model, m.succeeded)
		o.counter("vllm_omni:prompt_tokens_total", "Prompt tokens over all stages.", m.promptTokensSum)
		o.counter("vllm_omni:generation_tokens_total", "Generation tokens over all stages.", m.completionSum)
	}
}

// writeSGLangOmniMetrics renders serve/metrics.py's families: the
// coordinator gauges, then the HTTP middleware's counter and histogram,
// labels sorted by name, values as Python's format_value writes them.
func (s *Server) writeSGLangOmniMetrics(w http.ResponseWriter, m *counts, running, waiting int, model string) {
	p := &promWriter{w: w}
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
