// Package sim is a simulated OpenAI-compatible speech server (speech to
// text; the Omni personas also text to speech and audio chat) that
// behaves like the real engines wherever it matters for measurement. It
// serves demos and the runner's end-to-end tests; it never pretends to
// recognise speech.
//
// # Personas
//
// A persona is one row of the personas table (persona.go) pointing at its
// engine's row of internal/engine's table: every way the engines differ
// (shapes, events, errors, metric names, served paths, shedding, owned_by)
// is read from that row by value, never by an if on the persona's name;
// the persona adds only what the simulator chooses (label values, how it
// renders /metrics). Facts lists what the persona reproduces with the
// engine source (file@commit) each fact was read from. The sim and the
// client share these facts, not code. Versions: vllm 0.29.0 (vllm-omni 0.28.0), sglang-omni 0.1.4 (releases that serve
// Qwen3-ASR). vllm-omni is vllm in every HTTP shape; its /metrics label
// every vllm:* family with stage and replica instead of engine and add
// vllm_omni:num_requests_running/_waiting, vllm_omni:requests_success_total
// {finished_reason}, vllm_omni:prompt_tokens_total and
// vllm_omni:generation_tokens_total. Below, "vllm" covers vllm-omni.
// Without Config.Model a persona serves DefaultModel (Qwen3-ASR), the
// vllm-omni persona DefaultTTSModel (Qwen3-TTS, what vLLM-Omni serves):
// DefaultModelOf, a field of the persona's row.
//
// # Endpoints
//
// Both personas serve POST /v1/audio/transcriptions (multipart/form-data:
// file, model, language, response_format json|text|verbose_json (and
// diarized_json, srt, vtt, which both refuse as their Qwen3-ASR does),
// temperature, stream, stream_include_usage), GET /v1/models and GET
// /metrics (Prometheus text format 0.0.4; 404 with NoMetrics, as
// SGLang-Omni without metrics enabled). vllm: /health is an empty 200,
// /version answers {"version"}, /server_info exists only with DevMode
// (VLLM_SERVER_DEV_MODE=1) and answers {"vllm_config","vllm_env",
// "system_env"}, vllm_config being str(VllmConfig) or, with
// ?config_format=json, the nested config (scheduler_config.max_num_seqs,
// max_num_queued_reqs and max_num_queued_tokens (null when unbounded),
// cache_config.gpu_memory_utilization, cache_config.enable_prefix_caching,
// model_config.dtype "torch.bfloat16"); an unlimited MaxRunning is null.
// sglang-omni: /health is {"status":"healthy",...}; there is no /version,
// /server_info, /get_server_info or /get_model_info (its knobs are launch
// arguments). Unknown paths are FastAPI's 404 {"detail":"Not Found"}.
//
// # Realtime recognition (realtime.go)
//
// Every persona whose engine has a realtime row serves GET /v1/realtime,
// a WebSocket (github.com/coder/websocket), in that row's protocol: vllm
// and vllm-omni vLLM's (session.update {model}, a first commit that
// starts generation, appends, commit {final:true}; Qwen3-ASR's 5 s
// segments decoded each once in, every one with its language header;
// transcription.delta, transcription.done; vllm:websocket_connections_*
// on /metrics), sglang-omni SGLang-Omni's on ?intent=transcription
// (event_index from 1; a cumulative re-decode every 2 s of audio as a
// transcription.segment hypothesis whose last word is heard wrong on
// every other decode; the client's transcription.done, then the final
// segment and transcription.completed). The clip is found from the
// samples streamed so far; a decode takes BaseLatency + PerAudioSecond ×
// its seconds in a running slot, which a vllm session holds from its
// first commit (generation start) to transcription.done (vLLM keeps a
// paused streaming session's slot) and an sglang-omni session asks for
// per decode. realtime.go's
// doc has each fact with its source.
//
// # Audio chat (chat.go)
//
// The vllm-omni and sglang-omni personas also serve POST
// /v1/chat/completions with a clip (chatShape, a value per persona, from
// internal/engine's chat-audio rows): vllm-omni takes it as an
// input_audio or audio_url content part and refuses a stream that names
// no modalities, sglang-omni takes the first of its top-level audios data
// URLs. The answer is the clip's transcript (recognise), whole
// (chat.completion with usage) or streamed: chat.completion.chunk
// events, one word each ChatTokenInterval apart after BaseLatency +
// PerAudioSecond × the clip's seconds, a finish chunk, usage (vllm-omni's
// only with stream_options.include_usage, sglang-omni's in its finish
// chunk), then data: [DONE]. It is counted as a transcription is.
//
// # Speech (speech.go)
//
// The vllm-omni and sglang-omni personas also serve POST /v1/audio/speech,
// each in its engine's shapes (speechShape, a value per persona): a JSON
// body {model, input, voice, response_format wav|pcm|flac, stream,
// stream_format, ref_audio, ref_text} answered with a WAV (audio/wav),
// raw s16le (audio/pcm) or a whole FLAC body (audio/flac: encoded with
// github.com/mewkiz/flac, the library benchseal decodes FLAC with,
// verbatim subframes of 4096 samples; it decodes to the WAV's samples).
// mp3 and opus, which both engines encode, are refused (400 "the
// simulator produces wav, pcm and flac"): the simulator has no encoder
// for them. The voice is Speech: a tone at 24 kHz whose
// pitch follows the text's SHA-256 and whose duration is
// SpeechSecondsPerChar per character; not speech. Streams send it in
// 0.2 s chunks, the first after the prefill share of the service time
// (BaseLatency + PerAudioSecond per second produced; # Server-side
// stages), the others over the rest.
//
// vllm-omni (serving_speech.py@d6240742): stream_format "audio" is a raw
// stream (pcm, or wav: a 44-byte header with 0xFFFFFFFF sizes just before
// the first chunk) whose headers go out before any audio, with no rate
// header; stream:true otherwise is its SSE: event: speech.audio.delta
// {type, audio (base64), response_format}, the first delta of a WAV only
// the header, then speech.audio.done {type, usage}, no [DONE]. Its 400s:
// an empty input, a ref_audio that is not http(s)://, data: or file://, a
// reference outside 1-30 s, a stream in another format than pcm or wav
// (its request model's "Streaming ... requires response_format='pcm' or
// 'wav'."); another model is its 404. /metrics adds the
// vllm_omni:audio_* families.
//
// sglang-omni (sglang_omni/serve/openai_api.py, speech_service.py@3f4286eb):
// stream:true needs pcm (else its typed 400) and is raw s16le whose
// headers, with X-Sample-Rate, X-Channels: 1 and X-Bit-Depth: 16, wait
// for the first chunk; a whole body carries Content-Disposition,
// X-Prompt-Tokens, X-Completion-Tokens, X-Engine-Time (the service time,
// as Python's str of a float) and X-Finish-Reason; model is never read; errors are
// {"error":{message, type, param, code}}. It admits speech apart from
// transcription, 16 running and 16 queued, and refuses the next with 503
// "The request queue is full." (its engine row's tts Shedding). Speech is in none of its
// /metrics families (its main serves no /metrics for TTS).
//
// StreamFailRate and StreamCutRate break a stream halfway: a raw stream
// is aborted with no in-band marker (both engines); an SSE stream ends
// with speech.audio.error (StreamFailRate) or is cut without
// speech.audio.done (StreamCutRate). With Cache, a reference seen before
// takes half BaseLatency less, by the engine's key: vLLM-Omni's sha1 of
// the ref_audio string, SGLang-Omni's (xxh3 of) the data URI with
// ref_text; the simulator hashes the same bytes with sha1. A cache the
// tts task's 1-LSB variants defeat and the cache probe's identical
// repeats hit. Not simulated: mp3/opus bodies, silence injection,
// voices, SGLang-Omni's newer speech SSE and GET
// /v1/audio/speech/{request_id} (index only, not at 3f4286eb). The speech endpoint is the same server's, so /v1/models names
// the simulator for it too.
//
// # The simulator names itself
//
// GET /v1/models carries two fields no engine sends, at its top level:
// "benchseal_sim": the persona ({"object":"list","data":[...],
// "benchseal_sim":"vllm"}; engine.SimulatorField), and
// "benchseal_sim_settings" (engine.SimulatorSettingsField): the settings
// it runs with, keyed as engine.SimSettings: persona, max_running (after
// the engine's default), max_queue, max_queued_tokens ("unlimited" for
// a bound it does not set), base_latency_ms, per_audio_second_ms,
// fail_rate, stream_fail_rate, stream_cut_rate, word_error_rate, cache,
// chunk_seconds ("engine default" unless set), metrics_lag_ms,
// raw_prefix, ready_delay_ms and seed. Clients ignore fields they do not
// know, so nothing else about a persona changes; the fingerprint records
// /v1/models in probes-before.json and probes-after.json, so verify,
// report and compare can say that a bundle measured the simulator, not
// an engine, and verify's fairness check compares the settings as knobs
// (max_running as max running requests, the others by their own names;
// the persona and the seed are not compared): two simulators set apart
// are "not shown fair".
//
// # Answers
//
// vllm answers every non-streamed format as JSON {"text","usage":{"type":
// "duration","seconds"}} with Content-Type application/json, text
// included; sglang-omni answers text as text/plain. With stream=true,
// vllm sends transcription.chunk chunks whose id is transcribe-<the
// request's X-Request-Id> (a random uuid without one), a last chunk with
// finish_reason "stop", a usage chunk (choices []) only with
// stream_include_usage, then data: [DONE]; sglang-omni sends
// X-Request-Id: transcription-<uuid> (its own id, whatever was sent),
// transcript.text.delta events, transcript.text.done {text, usage}, then
// data: [DONE]. The first word comes after the prefill share of the
// service time (# Server-side stages), the others spread evenly over the
// rest. vllm sends its 200 and headers once the request has passed
// admission, before it waits in the queue (vLLM returns its
// StreamingResponse once the engine has the request), so a FailRate
// failure of a vllm stream is its error event; sglang-omni's headers wait
// for its first event, so what fails before it (a shed, a FailRate
// failure) is a plain HTTP error {"detail"}. sglang-omni leaves usage out when the
// audio is 0 s long.
//
// One transcription is as many engine requests as the persona's engine
// makes of it (the engine row's Transcription.Chunking): audio longer
// than ChunkSeconds (sim --chunk-seconds; 0: vllm 30 s, sglang-omni
// 60 s) is cut into chunks of ChunkSeconds less the row's overlap (vllm:
// 29 s, the start of its search for a quiet split point; sglang-omni:
// 60 s, and only when not streamed: a stream over 1200 s is 400), with
// ids <id>-<i> (vllm) or <id>-chunk-<i>; a vllm request without language
// to a Whisper (a served model whose name says whisper) adds
// <id>-lang_detect. vllm counts and observes every engine request in
// vllm:request_success_total and its stage histograms (with the
// request's times) and exports a span for each; sglang-omni's middleware
// counts the HTTP request once and its profiler writes each chunk's
// events.
// StreamFailRate makes that fraction of streams fail after half their
// words with the persona's error event (vllm data: {"error":{...}} then
// [DONE]; sglang-omni data: {"type":"error","error":{"message"}} and no
// [DONE]); StreamCutRate makes them end there with nothing more.
//
// # Errors
//
// vllm answers {"error":{"message","type","param":null,"code"}}: a wrong
// model name is 404 NotFoundError "The model `X` does not exist.",
// verbose_json and diarized_json are 400 (Qwen3-ASR has neither segment
// timestamps nor diarization), srt and vtt 400 (not among its formats), a missing file,
// a body that is not multipart, an unknown response_format or a WAV whose
// fmt/data chunks cannot be read is 400. sglang-omni does not check the
// model (form.model or default_model): a request for another model is
// answered 200 by its own; a missing file is FastAPI's 422
// {"detail":[...]}, an empty one 400 "Uploaded audio file is empty", srt
// and vtt 400 (Qwen3-ASR has no segment timestamps), a stream in any
// format but json or text 400, everything else {"detail": "..."}. Past
// MaxQueue the next request is shed after its upload, counted as its
// engine counts: vllm when MaxQueue requests are in flight, running and
// waiting together, each engine request of a chunked transcription one
// slot (--max-num-queued-reqs since vLLM PR #49445), or, with
// MaxQueuedTokens, when the prompt tokens of the requests still in
// prefill would pass it (--max-num-queued-tokens), with 503
// (ShedStatusVLLM; without MaxQueue it queues without bound, as vLLM does
// by default); sglang-omni when MaxQueue requests wait beyond
// MaxRunning, with 500 {"detail":"The request queue is full."} (ShedStatusSGLang: SGLang-Omni's QueueFullError on
// transcriptions, as with --max_queued_requests; 0.1.4 said
// "request-build backlog is full ..."). A stream is shed the same way,
// before its headers. MaxRunning 0 is the engine's default: sglang-omni
// runs 64 at once (Qwen3-ASR's max_running_requests), vllm without bound.
// FailRate makes that fraction of admitted requests fail with 500 after
// their service time (drawn from Seed and the request's arrival number;
// a vllm stream, whose 200 is out, with its error event then [DONE]).
// Until ReadyDelay has passed, everything but /metrics answers 503.
//
// # Latency, admission and the cache
//
// Service time = BaseLatency + PerAudioSecond × audio seconds (frames /
// sample rate from the WAV header), counted from the request's arrival (or
// from its admission if it queued) and slept on a timer that ends early if
// the client leaves. MaxRunning requests are served at once, the others wait in
// FIFO order; no lock is held while a request is served, so throughput is
// MaxRunning / service time. With stream=true the words arrive in the
// persona's events (# Answers): the first after the prefill share, the
// others spread evenly over the decode.
//
// The cache is consulted before admission: with Cache on, a body whose
// bytes were answered before is answered at once, without queueing, which
// is what makes unperturbed benchmarks flatter real engines. Every request
// counts as a cache query whether or not Cache is on; hits only move with
// Cache on. vllm counts vllm:mm_cache_queries_total / _hits_total in items
// and vllm:prefix_cache_queries_total / _hits_total in prompt tokens (16
// template tokens + 25 per audio second), every family labelled
// engine="0" and model_name, with vllm:request_success_total by
// finished_reason and vllm:cache_config_info{block_size,cache_dtype,
// enable_prefix_caching,engine,gpu_memory_utilization} 1 (no model_name).
// sglang-omni caches by content but, like SGLang-Omni, exposes no cache
// counter: its /metrics has sglang_omni_pipeline_running,
// _tracked_requests, _pending_completions, sglang_omni_request_states{state},
// sglang_omni_stage_present{stage}, sglang_omni_http_requests_total{method,
// model_name,route,status} and sglang_omni_http_request_duration_seconds,
// counted for every request but /metrics (serve/metrics.py's design).
// With SGLangMetrics SGLangRuntimeMetrics (sim --sglang-metrics runtime)
// it renders the prometheus_client design instead (runtime_metrics.go:
// sglang_omni:asr_requests_total{status} accepted at arrival and then
// completed, rejected (shed), failed or cancelled;
// sglang_omni:asr_requests_running; the completed requests'
// asr_request_latency_seconds, asr_input_duration_seconds,
// asr_engine_latency_seconds (service time) and, streamed,
// asr_text_ttft_seconds), which design a release ships being unknown.
//
// # Server-side stages
//
// The vllm personas expose vLLM's stage histograms (the engine row's
// Metrics.Stages, with its buckets: vllm:request_queue_time_seconds,
// _prefill_, _decode_, _inference_time_seconds,
// vllm:time_to_first_token_seconds, vllm:e2e_request_latency_seconds;
// vllm-omni adds vllm_omni:e2e_request_latency_s), each observed once
// per successful request when it finishes (a stream after its final
// event, before its [DONE], so that a client scraping /metrics as soon as
// it has read [DONE] finds its request counted), from the sim's own
// latency model: queue is measured, from arrival to admission (0 for a request
// admitted at once, and for a cache hit); the service time splits into
// prefill, a fixed PrefillShare (a quarter) of it, standing for the
// encoder and the prompt's forward, and decode, the rest; inference is
// prefill + decode (the service time), ttft queue + prefill, e2e arrival
// to finish as measured. The split is a modelling choice: the sim has no
// encoder to time; streamed words follow it (the first at the first
// token, the others over the decode), so a client's first streamed text
// is never before the first token the sim books in its histograms and
// spans. vLLM observes ttft at the first token rather than at the
// finish, which counts the same over any window that starts and ends
// idle. Failed requests are in no stage histogram. sglang-omni's
// sglang_omni_http_request_duration_seconds is its middleware's
// (# Latency, admission and the cache).
//
// Config.MetricsLag (sim --metrics-lag) makes every request's count and
// stage observations (and sglang-omni's middleware count) land that long
// after its answer was handed to the HTTP side, as real vLLM's output
// handler records a finished request's stats (loggers.py record) after
// pushing its output to the waiting request (vllm/v1/engine/async_llm.py
// output_handler). A /metrics scrape taken the instant the last answer
// arrives then misses the last requests: what internal/fingerprint's
// recorder waits out before it keeps the step's scrape.
//
// # Per-request server evidence
//
// Besides its histograms each persona can leave the per-request evidence
// its engine leaves (serverevents.go, otlp.go, profiler.go), from the same
// latency model (# Server-side stages): arrival = queued = the request's
// arrival, scheduled = its admission, first token = scheduled + prefill,
// last token = scheduled + service, before the answer's last byte leaves.
// A request is recorded once it has been answered, or its client left, or
// StreamFailRate or StreamCutRate broke its stream; a cache hit is
// recorded with no queue and no service; requests
// shed or failed by FailRate leave no span and no events.
//
// The vllm personas, with OTLPEndpoint (sim --otlp-traces-endpoint URL,
// vLLM's --otlp-traces-endpoint), export one span per answered request as
// vLLM's do_tracing does (vllm/v1/engine/output_processor.py @d0782260):
// name "llm_request", kind SERVER, from arrival to the last token, with
// gen_ai.request.id = the request's id (transcribe-<X-Request-Id>, as in
// # Answers), gen_ai.response.finish_reasons and the durations in seconds
// gen_ai.latency.time_in_queue (scheduled - queued),
// _time_to_first_token (first token - arrival), _time_in_model_prefill
// (first token - scheduled), _time_in_model_decode (last - first token),
// _time_in_model_inference (last token - scheduled) and _e2e (last token -
// arrival; attribute names from vllm/tracing/utils.py @0bf3270f), under
// the resource service.name "vllm" and the scope "vllm.llm_engine". The
// protocol is OTLPProtocol (sim --otlp-protocol), read as vLLM reads
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (vllm/tracing/otel.py @40eeb0c5):
// OTLPGRPC, the default (insecure), or OTLPHTTP, which POSTs the
// protobuf ExportTraceServiceRequest to the endpoint exactly as given
// (vLLM appends nothing: name the /v1/traces path). Spans go out in one
// batch every OTLPFlushInterval (500 ms; vLLM's BatchSpanProcessor waits
// 5 s) and on Close, which Serve calls on shutdown; an export that fails
// is logged to RequestLog ("sim: otlp export: ..."), never retried. The
// sglang-omni persona exports no spans.
//
// The sglang-omni persona serves SGLang-Omni's request profiler
// (sglang_omni/serve/launcher.py @03c8f159 _mount_profiler_routes,
// profiler/event_recorder.py @30e3cee2). POST /start_request_profile
// {"run_id"?, "event_dir"?} answers {"run_id","event_dir"}; without an
// event_dir it writes to ProfilerDir/<run_id>/events (sim --profiler-dir,
// standing for SGLANG_TORCH_PROFILER_DIR) and without either it answers
// 400 {"detail":"event_dir is required when SGLANG_TORCH_PROFILER_DIR is
// not set"}; a body that is not JSON is FastAPI's 422. A start with
// another run_id rotates the files. POST /stop_request_profile {"run_id"?}
// closes the files (after the events of requests already answered are
// written) and answers {"run_id"}, null when none was active. While
// profiling, every answered request appends JSON lines {request_id,
// stage, event_name, timestamp_ns, run_id, pid, metadata} with the
// server's own request id (transcription-<uuid>, returned only on a
// streamed answer) and the wall clock in nanoseconds (time.time_ns(), the
// recorder's default): events_coordinator_<pid>.jsonl gets
// request_admission (arrival) and terminal_response (last token);
// events_asr_<pid>.jsonl, the one stage of Qwen3-ASR
// (sglang_omni/models/qwen3_asr/config.py @0970348d), gets
// scheduler_request_build_start and _end and scheduler_queue_enter (all at
// arrival: the sim builds nothing), scheduler_prefill_start (scheduled),
// scheduler_first_emit (first token) and stage_complete (last token).
// Which intervals a reader takes from these names is serverevents' (it
// follows SGLang-Omni's benchmark code; the coordinator's emit sites were
// not read).
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
//
// # Imports
//
// It owns the simulated server: personas, answers, errors, latency,
// admission and cache. Must never import: internal/bench, internal/claims,
// internal/fingerprint, internal/score, perturb, verify. Why: it stands in
// for a real engine and shares no code with the client that measures it.
package sim
