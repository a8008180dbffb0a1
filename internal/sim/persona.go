package sim

import (
	"encoding/json"
	"net/http"
)

// Version strings the personas report about themselves.
const (
	VLLMVersion   = "0.11.0"
	SGLangVersion = "0.5.4"
)

// Engine-config values the personas report (what a real launch would show).
const (
	simMaxModelLen   = 65536
	simGPUMemoryUtil = 0.9
	simMemFraction   = 0.88
	simDType         = "bfloat16"
)

// Status codes the personas shed with when their queue is full: SGLang-Omni
// was observed answering HTTP 500 at concurrency 64; vLLM's front end
// answers 503 when it refuses load.
const (
	ShedStatusVLLM   = http.StatusServiceUnavailable
	ShedStatusSGLang = http.StatusInternalServerError
)

func (s *Server) shedStatus() int {
	if s.cfg.Persona == PersonaSGLangOmni {
		return ShedStatusSGLang
	}
	return ShedStatusVLLM
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

// writeError answers with the persona's error JSON:
// vLLM {"error":{"message","type","param","code"}};
// SGLang {"object":"error","message","type","param","code"}.
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	var body any
	type errBody struct {
		Object  string  `json:"object,omitempty"`
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    int     `json:"code"`
	}
	e := errBody{Message: msg, Type: errorType(status), Code: status}
	if s.cfg.Persona == PersonaSGLangOmni {
		e.Object = "error"
		body = e
	} else {
		body = struct {
			Error errBody `json:"error"`
		}{e}
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (s *Server) ownedBy() string {
	if s.cfg.Persona == PersonaSGLangOmni {
		return "sglang"
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
		MaxModelLen int    `json:"max_model_len"`
	}
	return struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{
		ID: s.cfg.Model, Object: "model", Created: s.started.Unix(), OwnedBy: s.ownedBy(),
		Root: s.cfg.Model, MaxModelLen: simMaxModelLen,
	}}}
}

// limit reports a limit for the self-description: null when unlimited.
func limit(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// vllmServerInfo is a flat excerpt of the engine config vLLM reports.
func (s *Server) vllmServerInfo() any {
	return map[string]any{
		"model":                  s.cfg.Model,
		"served_model_name":      s.cfg.Model,
		"version":                VLLMVersion,
		"max_num_seqs":           limit(s.cfg.MaxRunning),
		"max_model_len":          simMaxModelLen,
		"gpu_memory_utilization": simGPUMemoryUtil,
		"dtype":                  simDType,
		"enable_prefix_caching":  s.cfg.Cache,
		"mm_processor_cache_gb":  cacheGB(s.cfg.Cache),
		"tensor_parallel_size":   1,
		"simulated":              true,
	}
}

func cacheGB(on bool) int {
	if on {
		return 4
	}
	return 0
}

// sglangServerInfo is a flat excerpt of SGLang's server_args.
func (s *Server) sglangServerInfo() any {
	return map[string]any{
		"model_path":           s.cfg.Model,
		"served_model_name":    s.cfg.Model,
		"version":              SGLangVersion,
		"max_running_requests": limit(s.cfg.MaxRunning),
		"max_queued_requests":  limit(s.cfg.MaxQueue),
		"context_length":       simMaxModelLen,
		"mem_fraction_static":  simMemFraction,
		"dtype":                simDType,
		"disable_radix_cache":  !s.cfg.Cache,
		"tp_size":              1,
		"simulated":            true,
	}
}

// writeMetrics writes /metrics with the persona's own metric names.
func (s *Server) writeMetrics(w http.ResponseWriter) {
	m := s.metrics.snapshot()
	running, waiting := s.admission.state()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	p := &promWriter{w: w, labels: `model_name="` + escapeLabel(s.cfg.Model) + `"`}
	if s.cfg.Persona == PersonaSGLangOmni {
		p.gauge("sglang:num_running_reqs", "The number of running requests.", running)
		p.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", waiting)
		p.counter("sglang:prompt_tokens_total", "Number of prefill tokens processed.", m.promptTokensSum)
		p.counter("sglang:generation_tokens_total", "Number of generation tokens processed.", m.completionSum)
		p.counter("sglang:cached_tokens_total", "Number of cached prompt tokens.", m.prefixHits)
		p.counter("sglang:num_requests_total", "Number of requests processed.", m.requests)
		p.histogram("sglang:e2e_request_latency_seconds", "Histogram of end-to-end request latency in seconds.", &m)
		return
	}
	p.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", running)
	p.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting)
	p.counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", m.prefixQueries)
	p.counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", m.prefixHits)
	p.counter("vllm:mm_cache_queries_total", "Multi-modal cache queries, in terms of number of queried items.", m.mmQueries)
	p.counter("vllm:mm_cache_hits_total", "Multi-modal cache hits, in terms of number of cached items.", m.mmHits)
	p.counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", m.promptTokensSum)
	p.counter("vllm:generation_tokens_total", "Number of generation tokens processed.", m.completionSum)
	p.counter("vllm:request_success_total", "Count of successfully processed requests.", m.succeeded)
	p.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", &m)
}
