// Package sim is a simulated OpenAI-compatible speech-to-text server that
// behaves like the real engines wherever it matters for measurement. It
// serves demos and the runner's end-to-end tests; it never pretends to
// recognise speech.
//
// # Endpoints
//
// Both personas serve POST /v1/audio/transcriptions (multipart/form-data:
// file, model, language, response_format json|text|verbose_json,
// temperature, stream), GET /v1/models, GET /health (200, empty body) and
// GET /metrics (Prometheus text format 0.0.4). The vllm persona adds
// /version and /server_info; the sglang-omni persona adds /get_server_info,
// /server_info and /get_model_info. The self-descriptions are flat JSON
// objects with the knobs a fairness check compares (vLLM max_num_seqs,
// gpu_memory_utilization, dtype, enable_prefix_caching; SGLang
// max_running_requests, mem_fraction_static, dtype, disable_radix_cache);
// an unlimited limit is null. They carry no key or token of any kind.
//
// # Errors
//
// vLLM answers {"error":{"message","type","param":null,"code"}}, SGLang
// {"object":"error","message","type","param":null,"code"}. A wrong model
// name is 404; a missing file or a second one, a body that is not multipart, an unknown
// response_format or a WAV whose fmt/data chunks cannot be read is 400.
// When more than MaxQueue requests wait, the next one is shed at once:
// vllm with 503 (ShedStatusVLLM), sglang-omni with 500 (ShedStatusSGLang,
// what SGLang-Omni was seen to answer at concurrency 64). FailRate makes
// that fraction of admitted requests fail with 500 after their service
// time (drawn from Seed and the request's arrival number). Until
// ReadyDelay has passed, everything but /metrics answers 503.
//
// # Latency, admission and the cache
//
// Service time = BaseLatency + PerAudioSecond × audio seconds (frames /
// sample rate from the WAV header), counted from the request's arrival (or
// from its admission if it queued) and slept on a timer that ends early if
// the client leaves. MaxRunning requests are served at once, the others wait in
// FIFO order; no lock is held while a request is served, so throughput is
// MaxRunning / service time. With stream=true the words arrive as vLLM's
// transcription.chunk events spread evenly over the service time, then a
// final chunk with finish_reason "stop" and usage, then "data: [DONE]".
//
// The cache is consulted before admission: with Cache on, a body whose
// bytes were answered before is answered at once, without queueing, which
// is what makes unperturbed benchmarks flatter real engines. Every request
// counts as a cache query whether or not Cache is on; hits only move with
// Cache on. vLLM counts vllm:mm_cache_queries_total / _hits_total in items
// and vllm:prefix_cache_queries_total / _hits_total in prompt tokens;
// SGLang counts sglang:prompt_tokens_total and, on a hit,
// sglang:cached_tokens_total by the clip's prompt tokens (16 template
// tokens + 25 per audio second).
//
// # Recognition
//
// A corpus clip is recognised even in a benchseal variant (same length,
// exactly one byte changed): clips are indexed by length and the SHA-256 of
// each half of their bytes, a variant leaves one half intact, and the
// candidate is confirmed by counting differing bytes. A recognised clip is
// answered with its reference text; WordErrorRate then substitutes
// round(rate × words) of its words, chosen by Seed and the clip's original
// bytes, so every variant of a clip gets the same errors. Audio the corpus
// does not hold is answered with a pseudo-sentence of 4 to 11 common words
// chosen by Seed and the body's length. With RawPrefix, every transcript
// starts with "language English<asr_text>" as Qwen3-ASR's raw output does.
package sim
