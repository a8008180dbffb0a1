package engine

import (
	"net/http"
	"slices"
)

// The /metrics cache counters benchseal knows, by the names the engines
// expose. They are the keys of schemas.StepTelemetry's CacheBefore and
// CacheAfter.
const (
	VLLMMMCacheHits        = "vllm:mm_cache_hits_total"
	VLLMMMCacheQueries     = "vllm:mm_cache_queries_total"
	VLLMPrefixCacheHits    = "vllm:prefix_cache_hits_total"
	VLLMPrefixCacheQueries = "vllm:prefix_cache_queries_total"
	VLLMGPUPrefixHits      = "vllm:gpu_prefix_cache_hits_total"
	VLLMGPUPrefixQueries   = "vllm:gpu_prefix_cache_queries_total"
	SGLangCachedTokens     = "sglang:cached_tokens_total"
)

// TranscriptionsPath is the OpenAI audio transcription endpoint every
// engine of the table serves.
const TranscriptionsPath = "/v1/audio/transcriptions"

// vllmCache: a multimodal cache hit is a whole audio input answered from
// cache, which a perturbed run must never see, so it is preferred;
// prefix-cache tokens come next (they also count the shared prompt
// template, so they may grow honestly). vllm:gpu_prefix_cache_* are the
// names before 0.9.
var vllmCache = []CacheCounter{
	{Name: VLLMMMCacheHits, Hit: true, Counts: CountsInputs, Source: vllmMMCacheSource},
	{Name: VLLMMMCacheQueries, Counts: CountsInputs, Source: vllmMMCacheSource},
	{Name: VLLMPrefixCacheHits, Hit: true, Counts: CountsTokens, Source: vllmPrefixCacheSource},
	{Name: VLLMPrefixCacheQueries, Counts: CountsTokens, Source: vllmPrefixCacheSource},
	{Name: VLLMGPUPrefixHits, Hit: true, Counts: CountsTokens, Deprecated: "0.9", Source: vllmPrefixCacheSource},
	{Name: VLLMGPUPrefixQueries, Counts: CountsTokens, Deprecated: "0.9", Source: vllmPrefixCacheSource},
}

// What vLLM's cache counters count: its PrometheusStatLogger increments
// the prefix-cache pair by SchedulerStats.prefix_cache_stats, whose
// record(num_tokens, num_hits) adds tokens ("queries: the number of
// tokens that were queried"); the multimodal pair counts multimodal
// data items (MultiModalCacheStats: "the number of multi-modal data
// items that were queried"; a transcription sends one, its audio).
const (
	vllmPrefixCacheSource = "vllm-project/vllm vllm/v1/metrics/stats.py@28ed1fb8 (PrefixCacheStats.record(num_tokens, num_hits)), vllm/v1/metrics/loggers.py@005a810b (counter_prefix_cache_hits.inc(prefix_cache_stats.hits))"
	vllmMMCacheSource     = "vllm-project/vllm vllm/v1/metrics/stats.py@28ed1fb8 (MultiModalCacheStats: multi-modal data items); newer loggers.py: \"Multi-modal cache hits, in terms of number of cached items\" (stored copy, commit not listed)"
)

var vllmRequests = &RequestCounter{Engine: VLLM, Name: "vllm:request_success_total", Histogram: "vllm:e2e_request_latency_seconds",
	Counts: "a request the engine finished, labelled finished_reason (stop, length, abort); requests refused before the engine (HTTP 4xx) are not counted; e2e_request_latency_seconds is observed for the same requests",
	Source: "vllm-project/vllm vllm/v1/metrics/loggers.py@005a810b (record: for finished_request in iteration_stats.finished_requests)"}

// vllmLatencyBuckets are vLLM's request_latency_buckets (e2e, queue,
// inference, prefill and decode histograms): nothing finer than 0.3 s.
var vllmLatencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
	40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}

// vllmTTFTBuckets are vLLM's vllm:time_to_first_token_seconds buckets.
var vllmTTFTBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
	0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}

const (
	vllmLoggers     = "vllm-project/vllm vllm/v1/metrics/loggers.py@005a810b (PrometheusStatLogger: request_latency_buckets; record: for finished_request in iteration_stats.finished_requests)"
	vllmStats       = "vllm/v1/metrics/stats.py@28ed1fb8 (IterationStats.update_from_finished_request)"
	vllmAtFinish    = "once per request the engine finished (finish_reason stop, length or abort), when it finishes; not for requests refused before the engine"
	vllmFinishStats = vllmLoggers + ", " + vllmStats
)

// vllmStages: the engine core's timestamps of a request (stats.py):
// queued (QUEUED event, entering the scheduler's waiting queue),
// scheduled (first SCHEDULED), first and last token; arrival is the
// frontend's arrival_time.
var vllmStages = []StageFamily{
	{Stage: StageQueue, Family: "vllm:request_queue_time_seconds", Buckets: vllmLatencyBuckets,
		Observed: vllmAtFinish + "; first SCHEDULED minus QUEUED", Source: vllmFinishStats},
	{Stage: StagePrefill, Family: "vllm:request_prefill_time_seconds", Buckets: vllmLatencyBuckets,
		Observed: vllmAtFinish + "; first token minus first SCHEDULED (the encoder runs in it)", Source: vllmFinishStats},
	{Stage: StageDecode, Family: "vllm:request_decode_time_seconds", Buckets: vllmLatencyBuckets,
		Observed: vllmAtFinish + "; last token minus first token", Source: vllmFinishStats},
	{Stage: StageInference, Family: "vllm:request_inference_time_seconds", Buckets: vllmLatencyBuckets,
		Observed: vllmAtFinish + "; last token minus first SCHEDULED (prefill + decode)", Source: vllmFinishStats},
	{Stage: StageTTFT, Family: "vllm:time_to_first_token_seconds", Buckets: vllmTTFTBuckets,
		Observed: "once per request, at its first token (iteration_stats.time_to_first_tokens_iter); first token minus arrival",
		Source:   vllmLoggers + ", " + "vllm/v1/metrics/stats.py@28ed1fb8 (update_from_output: first_token_latency)"},
	{Stage: StageE2E, Family: "vllm:e2e_request_latency_seconds", Buckets: vllmLatencyBuckets,
		Observed: vllmAtFinish + "; finish minus arrival", Source: vllmFinishStats},
}

// vllmOmniSecondsBuckets are vLLM-Omni's SECONDS_BUCKETS.
var vllmOmniSecondsBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0}

// vllmOmniStages: the pipeline's own e2e histogram first (a family only
// vLLM-Omni has, so StageFamilies tries it before vLLM's), then vLLM's
// per-stage families, relabelled stage and replica and summed over them.
var vllmOmniStages = append([]StageFamily{
	{Stage: StageE2E, Family: "vllm_omni:e2e_request_latency_s", Buckets: vllmOmniSecondsBuckets,
		Observed: "once per request the pipeline answered successfully (request_succeeded); user arrival to complete response over all stages",
		Source:   "vllm-project/vllm-omni vllm_omni/metrics/prometheus.py@01aa7cca (_e2e_latency_family, request_succeeded), vllm_omni/metrics/definitions.py@641dfaf1 (E2E_REQUEST_LATENCY_S, SECONDS_BUCKETS)"},
}, vllmStages...)

// sglangOmniDurationBuckets are serve/metrics.py's DEFAULT_DURATION_BUCKETS.
var sglangOmniDurationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// sglangOmniCaches: Qwen3-ASR's pre-LM encoder cache, keyed by the
// decoded waveform, so a one-LSB variant misses it (what perturbation is
// for); no /metrics family counts its hits.
var sglangOmniCaches = []UncountedCache{{
	Name:          "Qwen3-ASR pre-LM audio encoder cache",
	Key:           "<namespace>:<xxh3_128 of the decoded waveform as float32>, the namespace a digest of the model and the encoder pipeline's settings",
	VariantMisses: true,
	VariantWhy:    "the key hashes every sample of the decoded audio: a sample one LSB off is another float32 value, so another key (a variant identical after decoding, if a resampler ever rounded it away, would hit)",
	Size:          "4096 entries, 2 GiB",
	Knobs:         "stage factory args enable_pre_lm_encoder, pre_lm_cache_max_entries, pre_lm_cache_size_bytes (--stages.asr.factory_args.pre_lm_cache_max_entries=0 disables it)",
	Source: "charliechenye/sglang-omni sglang_omni/models/qwen3_asr/config.py@68abc7e (2026-08-14) (defaults), " +
		"sglang_omni/models/qwen3_asr/encoder_service.py@10733c98 (_cache_key_from_fingerprint: f\"{namespace}:{audio_fingerprint}\", build_cache_namespace), " +
		"sglang_omni/preprocessing/transcription.py@abc99547 (fingerprint=audio_fingerprint(waveform)), sglang_omni/utils/audio.py@abc59597 (xxhash.xxh3_128_hexdigest of np.float32); no counter: serve/metrics.py@92e15989",
}}

var sglangOmniStages = []StageFamily{
	{Stage: StageHTTP, Family: "sglang_omni_http_request_duration_seconds",
		Buckets:  sglangOmniDurationBuckets,
		Observed: "once per HTTP request answered on the route, whatever its status, when the handler returns (for a stream: not the whole stream)",
		Source:   "sgl-project/sglang-omni sglang_omni/serve/metrics.py@0641581e (install_metrics_middleware, observe_http_request, DEFAULT_DURATION_BUCKETS; labels method, model_name, route)"},
	// The prometheus_client design (sglangOmniRuntimeSource): ASR-only
	// families, no route label; its buckets (LATENCY_BUCKETS_S) not read.
	{Stage: StageE2E, Family: "sglang_omni:asr_request_latency_seconds", Task: TaskASR,
		Observed: "once per completed ASR HTTP request (transcriptions and translations), its HTTP latency; not for rejected, failed or cancelled ones",
		Source:   sglangOmniRuntimeSource},
	{Stage: StageInference, Family: "sglang_omni:asr_engine_latency_seconds", Task: TaskASR,
		Observed: "once per completed ASR request: the engine execution time summed over its engine requests (every long-audio chunk, which may run side by side, so it can exceed the request's wall time)",
		Source:   sglangOmniRuntimeSource},
	{Stage: StageTTFT, Family: "sglang_omni:asr_text_ttft_seconds", Task: TaskASR,
		Observed: "once per streamed ASR request, at its first transcript delta (arrival to first delta)",
		Source:   sglangOmniRuntimeSource},
}

// sglangOmniRuntimeSource: SGLang-Omni's prometheus_client metrics, in
// index files newer than any dated branch (absent from
// charliechenye/sglang-omni up to 2026-08-22): which design a release
// ships, this or sglang_omni_http_*, is not known, so benchseal reads
// whichever a scrape has.
const sglangOmniRuntimeSource = "sgl-project/sglang-omni sglang_omni/metrics/runtime.py@ee5df70a (RuntimeMetrics: sglang_omni:asr_requests_total{status}, asr_requests_running, asr_request_latency_seconds \"ASR HTTP request latency for completed responses\", asr_input_duration_seconds, asr_engine_latency_seconds \"Summed engine execution time for a completed ASR request\", asr_engine_rtf, asr_request_rtf, asr_text_ttft_seconds, asr_text_chunk_interval_seconds), " +
	"sglang_omni/serve/speech_metrics.py@843e9ec9 (SpeechMetricsMiddleware on /v1/audio/transcriptions and /v1/audio/translations), its docs (index id 70076584736: status accepted, rejected, completed, failed, cancelled; queue, cache and token families are upstream sglang:* by stage) and tests (index id 70576344634)"

// sglangOmniASRRequests is the prometheus_client design's request
// counter: every ASR request is counted accepted and then once more by
// how it ended, so the terminal statuses are what verify reconciles
// with the records.
var sglangOmniASRRequests = &RequestCounter{Engine: SGLangOmni, Name: "sglang_omni:asr_requests_total", Task: TaskASR,
	StatusLabel: "status", StatusOK: "completed", StatusShed: "rejected", StatusFailed: "failed", StatusCancelled: "cancelled",
	Histogram: "sglang_omni:asr_request_latency_seconds",
	Counts:    "an ASR HTTP request (transcriptions and translations, no route label) by status: accepted when it arrives, then completed, rejected (the queue full: benchseal's shed), failed or cancelled (its client left)",
	Source:    sglangOmniRuntimeSource}

var sglangStages = []StageFamily{
	{Stage: StageQueue, Family: "sglang:queue_time_seconds",
		Observed: "once per request, when it is first admitted to a prefill batch (queue entry to admission)",
		Source:   "sgl-project/sglang python/sglang/srt/metrics/collector.py (SchedulerMetricsCollector.queue_time; read in the index at an unpinned commit, its buckets differ between versions)"},
	{Stage: StageE2E, Family: "sglang:e2e_request_latency_seconds",
		Observed: "once per finished request (observe_one_finished_request)",
		Source:   "sgl-project/sglang python/sglang/srt/metrics/collector.py@00ae9c15 (observe_one_finished_request); buckets not read"},
}

// vllmTasks: vLLM (and vLLM-Omni, through vLLM's API server) serve
// transcriptions on the OpenAI route, streamed as transcription.chunk.
var vllmTasks = []TaskRow{{Task: TaskASR, Route: TranscriptionsPath, Stream: ChunkEvents,
	Source: "vllm-project/vllm vllm/entrypoints/openai/speech_to_text/api_router.py@029329a8, speech_to_text.py@024e0772 (_speech_to_text_stream_generator)"},
	vllmRealtime}

var vllmModels = Models{OwnedBy: "vllm", MaxModelLen: true, Source: "vllm-project/vllm vllm/entrypoints/openai/engine/protocol.py@040a2cc2 (ModelCard)"}

// vllmChunking: SpeechToTextConfig's defaults (max_audio_clip_s 30,
// overlap_chunk_second 1); a model may set its own clip length (Whisper
// and Qwen3-ASR: their feature extractor's chunk_length, which the
// checkpoint's preprocessor_config.json holds: 30 for Whisper, not read
// for Qwen3-ASR).
var vllmChunking = Chunking{ClipS: 30, OverlapS: 1, IDSuffix: "-%d", Streams: true,
	LangDetectSuffix: "-lang_detect", LangDetectModel: "whisper", // Whisper's classes set supports_explicit_language_detection; Qwen3-ASR names the language in its output
	Counted: true,
	Source: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/base/serving.py@055e47c2 and @ad5b1a8e (_decode_and_chunk_speech: split when duration > max_audio_clip_s; " +
		"engine_request_ids: request_id if one input else f\"{request_id}-{idx}\", streams too; _detect_language(chunks[0], f\"{request_id}-lang_detect\") when language is None and supports_explicit_language_detection), " +
		"vllm/frontend/processing/multimodal/audio.py@ad5b1a8e (split_audio: each chunk but the last ends at the quietest window of its last overlap_duration_s), " +
		"vllm/config/speech_to_text.py (SpeechToTextConfig: max_audio_clip_s 30, overlap_chunk_second 1; index, unpinned), vllm/model_executor/models/qwen3_asr.py@b80741ce (max_audio_clip_s=feature_extractor.chunk_length), whisper.py (supports_explicit_language_detection = True; index, unpinned); that a model's name says Whisper: assumption"}

var vllmTranscription = Transcription{Path: TranscriptionsPath, TextAsJSON: true, MissingFileStatus: http.StatusBadRequest,
	Chunking:           vllmChunking,
	IgnoresModelSource: "vllm-project/vllm vllm/frontend/entrypoints/serve/engine/serving.py@b59bccae (_check_model: 404 unless VLLM_SKIP_MODEL_NAME_VALIDATION is set, Knobs.Env)",
	Source:             "vllm-project/vllm vllm/entrypoints/openai/speech_to_text/api_router.py@029329a8, speech_to_text.py@024e0772 (supports_segment_timestamp); missing file 400: not read (the sim's choice)"}

var vllmStream = Stream{Events: ChunkEvents, ErrorEvent: OpenAIError, DoneAfterError: true, TakesRequestID: true, IDPrefix: "transcribe-",
	HeadersSource: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/base/serving.py@055e47c2 (\"we return a success status before we actually start generating text\"; errors after it are the stream's error event)",
	Source:        "vllm-project/vllm vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772 (_speech_to_text_stream_generator, create_streaming_error_response), engine/serving.py@619e4b31 (_base_request_id)"}

var vllmErrors = Errors{Shape: OpenAIError,
	ModelNotFound:       ModelNotFound{Format: "The model %s does not exist.", Quote: Backticks, Type: "NotFoundError"},
	AudioRefusals:       []string{"Maximum file size exceeded", "Invalid or unsupported audio file."},
	AudioRefusalsSource: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/base/utils.py@b59bccae (read_upload_with_limit: VLLM_MAX_AUDIO_CLIP_FILESIZE_MB), base/serving.py@055e47c2 (_decode_and_chunk_speech: \"Invalid or unsupported audio file.\"; load_audio's max_duration_s and max_decode_bytes refusals raise ValueError, their messages not read)",
	Source:              "vllm-project/vllm vllm/entrypoints/openai/engine/serving.py@619e4b31 (_check_model)"}

var vllmKnobs = Knobs{Served: []string{"/server_info?config_format=json", "/metrics", "/version"},
	Keys: []KnobKey{
		{Knob: KnobMaxRunning, Path: "scheduler_config.max_num_seqs", Flag: "--max-num-seqs"},
		{Knob: KnobMaxRunning, Path: "max_num_seqs"}, // flat: older /server_info
		{Knob: KnobGPUMemory, Path: "cache_config.gpu_memory_utilization", Flag: "--gpu-memory-utilization"},
		{Knob: KnobGPUMemory, Path: "gpu_memory_utilization"},
		{Knob: KnobDType, Path: "model_config.dtype", Flag: "--dtype"},
		{Knob: KnobDType, Path: "dtype"},
		{Knob: KnobPrefixCaching, Path: "cache_config.enable_prefix_caching", Flag: "--enable-prefix-caching", Bare: true},
		{Knob: KnobPrefixCaching, Path: "enable_prefix_caching"},
		{Knob: KnobPrefixCaching, Flag: "--no-enable-prefix-caching", Negate: true, Bare: true},
	},
	Expose:  "start vLLM with VLLM_SERVER_DEV_MODE=1 (its /server_info) or keep its /metrics reachable (vllm:cache_config_info)",
	Outcome: vllmOutcome,
	Source:  "vllm-project/vllm vllm/entrypoints/serve/instrumentator/server_info.py@4652ef5d (VLLM_SERVER_DEV_MODE only), vllm/v1/metrics/loggers.py@005a810b (vllm:cache_config_info); flags: vllm/engine/arg_utils.py (not re-read)"}

// vllmOutcome: the settings of vLLM that change what a transcription is
// answered.
var vllmOutcome = []OutcomeKnob{
	{Name: "VLLM_SKIP_MODEL_NAME_VALIDATION", Env: true,
		Effect: "a request for a model the server does not serve is answered (200) instead of 404 \"The model `X` does not exist.\"",
		Source: "vllm-project/vllm vllm/envs.py (VLLM_SKIP_MODEL_NAME_VALIDATION: bool = False, PR #34676, 0.21; index, unpinned), vllm/frontend/entrypoints/serve/engine/serving.py@b59bccae (_check_model)"},
	{Name: "VLLM_MAX_AUDIO_CLIP_FILESIZE_MB", Env: true,
		Effect: "an upload larger is refused 400 \"Maximum file size exceeded\" (param audio_filesize_mb): a corpus problem, not a model failure",
		Source: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/base/utils.py@b59bccae (read_upload_with_limit)"},
	{Name: "VLLM_MAX_AUDIO_DECODE_DURATION_S", Env: true,
		Effect: "audio that decodes longer is refused 400: a corpus problem, not a model failure",
		Source: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/base/serving.py@055e47c2 (load_audio(max_duration_s=envs.VLLM_MAX_AUDIO_DECODE_DURATION_S))"},
	{Name: "VLLM_MAX_AUDIO_DECODE_BYTES", Env: true,
		Effect: "audio that decodes to more bytes is refused 400: a corpus problem, not a model failure",
		Source: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/base/serving.py@055e47c2 (load_audio(max_decode_bytes=envs.VLLM_MAX_AUDIO_DECODE_BYTES))"},
	{Name: "--enable-server-load-tracking",
		Effect: "GET /load answers {\"server_load\"}, the requests in flight as the server counts them",
		Source: "vllm-project/vllm vllm/frontend/entrypoints/serve/instrumentator/basic.py@055e47c2 (/load)"},
	{Name: "--max-num-queued-reqs",
		Effect: "caps the requests in flight, running and waiting together (a request that makes n engine requests takes n slots), and refuses the next with 503 (Shedding): a server with it at N holds N requests, not max-num-seqs + N",
		Source: vllmAdmissionSource},
	{Name: "--max-num-queued-tokens",
		Effect: "caps the prompt tokens of the requests still in prefill (waiting or prefilling) and refuses the next with 503",
		Source: vllmAdmissionSource},
}

// vllmAdmissionSource: vLLM's two admission bounds, read in the PR that
// added them and the bug report against the release that ships them.
// The API server's file layout at that tag is #58192's
// (vllm/entrypoints/generate/base/serving.py), not the vllm/frontend/...
// tree other rows cite from the index (whose release is not known).
const vllmAdmissionSource = "vllm-project/vllm PR #49445 (merged 2026-07-22; vllm/v1/engine/async_llm.py check_admission: current = get_num_unfinished_requests(); current + n > max_num_queued_reqs raises QueueOverflowError, prompt tokens in prefill over max_num_queued_tokens MaxQueuedTokensError; both 503), " +
	"issue #58192 (2026-09-22, v0.29.0: GenerateBaseServing._preflight in vllm/entrypoints/generate/base/serving.py checks before the render, the slot is counted only after it, so a burst is refused after its whole preprocessing), PR #54746 (the cap shared, approximately, across API server processes)"

// vllmShedding: the message is the one issue 10 recorded; no source read
// since (PR #49445, issue #58192) shows the 503's text, so it stays
// unverified (Source says so) and a 503 with another text is still a
// shed only by its status where a reader allows that.
var vllmShedding = Shedding{Flag: "--max-num-queued-reqs", InFlight: true, TokensFlag: "--max-num-queued-tokens",
	Status: http.StatusServiceUnavailable, Shape: OpenAIError,
	Message: "The server is overloaded: too many requests queued.", AfterUpload: true,
	Source: vllmAdmissionSource + "; the message text: issue 10, unverified (found in no source: #49445 and #58192 show the status only)"}

// sglangKnobKeys: SGLang's server_args keys (its /get_server_info) and
// flags, which SGLang-Omni's launcher passes on.
var sglangKnobKeys = []KnobKey{
	{Knob: KnobMaxRunning, Path: "max_running_requests", Flag: "--max-running-requests"},
	{Knob: KnobGPUMemory, Path: "mem_fraction_static", Flag: "--mem-fraction-static"},
	{Knob: KnobDType, Path: "dtype", Flag: "--dtype"},
	{Knob: KnobPrefixCaching, Path: "disable_radix_cache", Flag: "--disable-radix-cache", Negate: true, Bare: true},
}

// table is every engine benchseal knows, in the order the counter lists
// prefer them. engine_test.go checks every row is complete.
var table = []*Engine{
	{
		Name: VLLM, Repo: "vllm-project/vllm", Version: "0.29.0", Facts: vllmFacts, Tasks: vllmTasks,
		Models: vllmModels, Transcription: vllmTranscription, Stream: vllmStream, Errors: vllmErrors,
		Health: Health{Source: "vllm-project/vllm vllm/entrypoints/serve/instrumentator/health.py@98b137c6 (Response(status_code=200)); newer: vllm/frontend/entrypoints/serve/instrumentator/health.py@b59bccae (503 on EngineDeadError)"},
		Metrics: Metrics{Prefix: "vllm:", Labels: []string{"engine"}, CacheCounters: vllmCache, Requests: vllmRequests, Stages: vllmStages,
			Source: "vllm-project/vllm vllm/v1/metrics/loggers.py@005a810b (make_per_engine, prefix_cache_*); mm_cache_* and the 0.9 removal of gpu_prefix_cache_*: loggers.py@a6f0308c (ENGINES.md)"},
		Knobs: vllmKnobs, Shedding: vllmShedding,
	},
	// vLLM-Omni serves transcriptions through vLLM's API server (the same
	// shapes), but relabels every vllm:* family's engine as stage and
	// replica and adds vllm_omni:* families.
	{
		Name: VLLMOmni, Repo: "vllm-project/vllm-omni", Version: "0.28.0", Tasks: append(slices.Clone(vllmTasks), vllmOmniSpeech, vllmOmniChat),
		Facts:  append(append([]Fact(nil), vllmFacts...), vllmOmniFacts...),
		Models: vllmModels, Transcription: vllmTranscription, Stream: vllmStream, Errors: vllmErrors,
		Health: Health{Source: "vllm-project/vllm vllm/entrypoints/serve/instrumentator/health.py@98b137c6 (vLLM's API server)"},
		Metrics: Metrics{Prefix: "vllm:", Labels: []string{"stage", "replica"}, CacheCounters: vllmCache, Requests: vllmRequests, Stages: vllmOmniStages,
			Source: "vllm-project/vllm-omni vllm_omni/metrics/stat_logger.py@8ad4f506 (OmniPrometheusStatLogger, _rewrite_labelnames), vllm_omni/metrics/definitions.py@641dfaf1"},
		Knobs: vllmKnobs, Shedding: vllmShedding,
	},
	{
		Name: SGLangOmni, Repo: "sgl-project/sglang-omni", Version: "0.1.4", Facts: sglangOmniFacts,
		Tasks: []TaskRow{{Task: TaskASR, Route: TranscriptionsPath, Stream: TranscriptEvents,
			Source: "sgl-project/sglang-omni sglang_omni/serve/transcriptions.py@0ac0a86e (TRANSCRIPTIONS_ENDPOINT), speech_to_text.py@070fc3b5 (speech_to_text_stream)"},
			sglangOmniSpeech, sglangOmniChat, sglangOmniRealtime},
		Models: Models{OwnedBy: "sglang-omni", CreatedZero: true, Source: "sgl-project/sglang-omni sglang_omni/serve/protocol.py@1b4b3750 (ModelCard)"},
		Transcription: Transcription{Path: TranscriptionsPath, VerboseJSON: true, MissingFileStatus: http.StatusUnprocessableEntity,
			IgnoresModel: true,
			// usage = TranscriptionUsage(seconds=ceil(duration_s)) if
			// duration_s > 0 else None, dumped with exclude_none
			// (charliechenye/sglang-omni speech_to_text.py@3f4286eb,
			// sgl-project/sglang-omni @f9f24e5a).
			NoUsageAtZero: true,
			Chunking: Chunking{ClipS: 60, IDSuffix: "-chunk-%d", StreamLimitS: 1200,
				Source: "charliechenye/sglang-omni sglang_omni/serve/transcriptions.py@70c4540 (2026-08-16) (needs_chunking, plan_audio_chunks: non-streamed audio over max_audio_clip_s, non-overlapping chunks f\"{request_id}-chunk-{span.index}\"; a stream over stream_clip_limit_s is 400 \"stream=true does not support audio longer than ...\"), " +
					"sglang_omni/models/qwen3_asr/config.py@68abc7e (2026-08-14) (max_audio_clip_s=60.0, max_native_clip_s QWEN3_ASR_MAX_INPUT_SECONDS: the 1200 s stream limit), sglang_omni/config/schema.py@c6bbcc8 (stream_clip_limit_s = max_native_clip_s); " +
					"which is newer is unclear: the index holds an upstream qwen3_asr/config.py with max_audio_clip_s=30.0 (\"defaults to 30s for scheduling\"); the HTTP middleware counts one per HTTP request either way"},
			IgnoresModelSource: "sgl-project/sglang-omni sglang_omni/serve/transcriptions.py@a31e5ed0 and charliechenye/sglang-omni@70c4540 (2026-08-16) (model=form.model or default_model, no check; model_not_found is left only in translations.py)",
			Source:             "sgl-project/sglang-omni sglang_omni/serve/speech_to_text.py@070fc3b5 (assemble_speech_to_text_response, File(...))"},
		Stream: Stream{Events: TranscriptEvents, ErrorEvent: TypedError, IDHeader: true, IDPrefix: "transcription-",
			HeadersAtFirstChunk: true,
			HeadersSource:       "sgl-project/sglang-omni sglang_omni/serve/speech_to_text.py@f9f24e5a (create_speech_to_text_streaming_response waits for the first chunk; before it HTTPException 400/500 {\"detail\"}), transcriptions.py@a31e5ed0",
			Source:              "sgl-project/sglang-omni sglang_omni/serve/speech_to_text.py@070fc3b5 (speech_to_text_stream), transcriptions.py@0ac0a86e (request_id)"},
		Errors: Errors{Shape: FastAPIDetail,
			ModelNotFound: ModelNotFound{Format: "The model %s does not exist.", Quote: PyRepr, Type: "invalid_request_error", Param: "model", Code: "model_not_found"},
			AudioRefusals: []string{"Uploaded audio file is empty", "accepts audio up to", "could not decode the uploaded audio", "stream=true does not support audio longer than"},
			AudioRefusalsSource: "sgl-project/sglang-omni sglang_omni/serve/speech_to_text.py@f9f24e5a and charliechenye/sglang-omni@70c4540 (read_and_validate_speech_to_text_audio: \"Uploaded audio file is empty\"), sglang_omni/serve/openai_errors.py@0e96c746 (bad-request markers), " +
				"sglang_omni/preprocessing/transcription.py@abc99547 (\"accepts audio up to\"), transcriptions.py@70c4540 (the stream limit)",
			Source: "sgl-project/sglang-omni sglang_omni/serve/speech_errors.py@0ac0a86e (resolve_served_model), transcriptions.py@0ac0a86e (HTTPException); since then on /v1/audio/translations only (Transcription.IgnoresModel)"},
		Health: Health{JSON: true, Source: "sgl-project/sglang-omni sglang_omni/serve/openai_api.py@2489a10e (_register_health); 503 {\"status\":\"unhealthy\"} when not running: charliechenye/sglang-omni openai_api.py@c6bbcc8"},
		Metrics: Metrics{Prefix: "sglang_omni_", DefaultOff: true, RouteLabel: "route",
			Requests: &RequestCounter{Engine: SGLangOmni, Name: "sglang_omni_http_requests_total",
				StatusLabel: "status", Histogram: "sglang_omni_http_request_duration_seconds",
				Counts: "an HTTP request answered, labelled method, model_name, route and status; every route but /metrics is counted (/health too), hence the route filter (RouteLabel, the task's Route); the duration histogram is the handler's time",
				Source: "sgl-project/sglang-omni sglang_omni/serve/metrics.py@0641581e (install_metrics_middleware, observe_http_request; the route label is the FastAPI route's path), sglang_omni/serve/transcriptions.py@0ac0a86e (TRANSCRIPTIONS_ENDPOINT)"},
			OtherRequests:   []*RequestCounter{sglangOmniASRRequests},
			Stages:          sglangOmniStages,
			UncountedCaches: sglangOmniCaches,
			Source:          "sgl-project/sglang-omni sglang_omni/serve/metrics.py@0641581e (no cache counter; 404 unless metrics are enabled); or, in newer index files, the prometheus_client design (" + sglangOmniRuntimeSource + ")"},
		Knobs: Knobs{Keys: sglangKnobKeys,
			Expose: "SGLang-Omni has no self-description, so record its launch command or its config",
			Outcome: []OutcomeKnob{
				{Name: "--max_queued_requests", Effect: "the queue (waiting and request builds pending) is bounded and the server sheds beyond it with 500 \"The request queue is full.\"",
					Source: "charliechenye/sglang-omni sglang_omni/cli/serve.py@c6bbcc8 (--max_queued_requests), sglang_omni/scheduling/omni_scheduler.py@0f7521a (_waiting_queue_is_full)"},
				{Name: "--stages.asr.factory_args.pre_lm_cache_", Effect: "sizes or (0) disables the pre-LM encoder cache that answers identical audio without counting it (Metrics.UncountedCaches)",
					Source: "sgl-project/sglang-omni (index, docs: --stages.asr.factory_args.pre_lm_cache_max_entries=0 --stages.asr.factory_args.pre_lm_cache_size_bytes=0), charliechenye/sglang-omni sglang_omni/models/qwen3_asr/config.py@68abc7e"},
				{Name: "--stages.asr.factory_args.enable_pre_lm_encoder", Effect: "turns the pre-LM encoder (and its cache) on or off",
					Source: "charliechenye/sglang-omni sglang_omni/models/qwen3_asr/config.py@68abc7e"},
				{Name: "--stages.asr.factory_args.prefill_coalesce_", Effect: "how many requests prefill waits to batch and for how long (16 requests or 40 ms by default): latency at low concurrency",
					Source: "charliechenye/sglang-omni sglang_omni/models/qwen3_asr/config.py@68abc7e"},
				{Name: "--stages.asr.factory_args.request_build_max_", Effect: "request-build workers and builds in flight (8 and 32 by default)",
					Source: "charliechenye/sglang-omni sglang_omni/models/qwen3_asr/config.py@68abc7e, sglang_omni/scheduling/omni_scheduler.py@0f7521a"},
			},
			Source: "sgl-project/sglang-omni sglang_omni/serve/openai_api.py@022b6a3d, launcher.py@03c8f159 (ENGINES.md), openai_api.py@2489a10e: no self-description; flags are SGLang's server args its launcher passes on"},
		Shedding: Shedding{Flag: "--max_queued_requests", Status: http.StatusInternalServerError, Shape: FastAPIDetail,
			Message: "The request queue is full.", Older: []string{"request-build backlog is full"}, AfterUpload: true,
			DefaultRunning: 64,
			Source: "sgl-project/sglang-omni sglang_omni/admission.py@75c59a20 (QueueFullError.MESSAGE; its docstring says 503), " +
				"sglang_omni/serve/speech_to_text.py@f9f24e5a and charliechenye/sglang-omni@70c4540 (2026-08-16) (complete_speech_to_text_request: anything not a bad request is HTTPException(500, str(exc))), " +
				"charliechenye/sglang-omni sglang_omni/scheduling/omni_scheduler.py@0f7521a (2026-08-19) (_waiting_queue_is_full: waiting + pending builds + backlog >= max_queued_requests, which SGLang's server args leave None: unbounded unless --max_queued_requests), " +
				"sglang_omni/models/qwen3_asr/config.py@68abc7e (2026-08-14) (max_running_requests 64); the older message: 0.1.4, issue 10 (not found in the index)"},
	},
	{
		Name: SGLang, Repo: "sgl-project/sglang", Version: "not read",
		Tasks: []TaskRow{{Task: TaskASR, Route: TranscriptionsPath, Stream: ChunkEvents,
			Source: "not read: SGLang's OpenAI server is not imitated; route and stream assumed vLLM-like"}},
		Facts: []Fact{
			{"sglang:cached_tokens_total appears only after the first cache hit; other sglang: families (num_running_reqs, num_queue_reqs, cache_hit_rate, e2e_request_latency_seconds) from the start", "ENGINES.md (not re-read)"},
			{"sglang:num_requests_total counts each finished request, with its e2e latency in sglang:e2e_request_latency_seconds", "python/sglang/srt/metrics/collector.py@00ae9c15 (observe_one_finished_request)"},
			{"/get_server_info is the flat server_args (max_running_requests, mem_fraction_static, dtype, disable_radix_cache)", "not re-read (fingerprint knobs.go)"},
		},
		Models: Models{OwnedBy: "sglang", Source: "not read: cmd/benchseal/replay_engine.go's note (SGLang: \"sglang\")"},
		Transcription: Transcription{Path: TranscriptionsPath, TextAsJSON: true, MissingFileStatus: http.StatusBadRequest,
			IgnoresModelSource: "not read: assumed to check the model, as vLLM does",
			Chunking:           Chunking{Source: "not read: SGLang's OpenAI server is not imitated; no chunking assumed"},
			Source:             "not read: SGLang's OpenAI server is not imitated; shapes assumed vLLM-like"},
		Stream: Stream{Events: ChunkEvents, ErrorEvent: OpenAIError, DoneAfterError: true,
			HeadersSource: "not read", Source: "not read: SGLang's OpenAI server is not imitated; the runner reads both stream shapes"},
		Errors: Errors{Shape: OpenAIError, ModelNotFound: ModelNotFound{Format: "The model %s does not exist.", Quote: Backticks, Type: "NotFoundError"},
			AudioRefusalsSource: "not read", Source: "not read: SGLang's OpenAI server is not imitated"},
		Health: Health{Source: "not read"},
		Metrics: Metrics{Prefix: "sglang:", CacheCounters: []CacheCounter{{Name: SGLangCachedTokens, Hit: true, LazilyCreated: true, Counts: CountsTokens,
			Source: "sgl-project/sglang python/sglang/srt/metrics/collector.py@93d04878 (TokenizerMetricsCollector: \"Number of cached prompt tokens.\", inc(cached_tokens) in observe_one_finished_request only when cached_tokens > 0)"}},
			Requests: &RequestCounter{Engine: SGLang, Name: "sglang:num_requests_total", Histogram: "sglang:e2e_request_latency_seconds",
				Counts: "a request the engine finished (observe_one_finished_request), with its e2e latency",
				Source: "sgl-project/sglang python/sglang/srt/metrics/collector.py@00ae9c15 (observe_one_finished_request)"},
			Stages: sglangStages,
			Source: "sgl-project/sglang python/sglang/srt/metrics/collector.py@00ae9c15; cached_tokens_total created at the first hit: collector.py@93d04878 (inc only when cached_tokens > 0)"},
		Knobs: Knobs{Served: []string{"/get_server_info", "/get_model_info", "/metrics"},
			Keys:   sglangKnobKeys,
			Source: "not re-read: SGLang's server_args keys (fingerprint knobs.go)"},
		Shedding: Shedding{Flag: "--max-queued-requests", Status: http.StatusServiceUnavailable, Shape: OpenAIError,
			Source: "not read: issue 10 lists --max-queued-requests; status and shape assumed"},
	},
}

// CacheCounterNames are every cache counter recorded in
// schemas.StepTelemetry's CacheBefore and CacheAfter, from the table.
var CacheCounterNames = cacheCounters(false)

// CacheHitCounters are the counters cache_hits may be the growth of, in
// order of preference (internal/claims takes the first present before and
// after a step). Query counters are never hits.
var CacheHitCounters = cacheCounters(true)

// StageFamilies are the stage histograms of the table for ASR runs
// (StageFamiliesFor(TaskASR)).
var StageFamilies = StageFamiliesFor(TaskASR)

// RequestCounters are the request counters of the table for ASR runs
// (RequestCountersFor(TaskASR)), in order of preference: the first
// present in both scrapes of a step is used.
var RequestCounters = RequestCountersFor(TaskASR)

func cacheCounters(hitsOnly bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range table {
		for _, c := range e.Metrics.CacheCounters {
			if (hitsOnly && !c.Hit) || seen[c.Name] {
				continue
			}
			seen[c.Name] = true
			out = append(out, c.Name)
		}
	}
	return out
}
