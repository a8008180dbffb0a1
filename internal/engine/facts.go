package engine

// vllmFacts: vllm-project/vllm, the files and commits read.
var vllmFacts = []Fact{
	{"response_format=text is answered {\"text\",\"usage\":{\"type\":\"duration\",\"seconds\"}} as application/json", "vllm/entrypoints/openai/speech_to_text/api_router.py@029329a8, speech_to_text.py@024e0772 (vLLM issue #49095)"},
	{"a stream is transcription.chunk chunks with id transcribe-<X-Request-Id>, a last chunk with finish_reason, then data: [DONE]", "vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772"},
	{"a stream that fails midway sends data: {\"error\":{...}} then data: [DONE]", "vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772 (create_streaming_error_response)"},
	{"the request id is the X-Request-Id header, else a random uuid", "vllm/entrypoints/openai/engine/serving.py@619e4b31 (_base_request_id)"},
	{"verbose_json with Qwen3-ASR is 400 (supports_segment_timestamp=False)", "vllm/entrypoints/openai/speech_to_text/speech_to_text.py@024e0772"},
	{"response_format is text, json, verbose_json or diarized_json, anything else 400 \"Currently only support response_format: ...\" (srt and vtt included); diarized_json is {task,duration,text,segments[{id,start,end,text,speaker}],usage}, its text the segments' text joined, and 400 \"Currently do not support diarized_json for X\" without supports_diarized_transcription (Qwen3-ASR); verbose_json and diarized_json cannot stream (400)", "vllm/frontend/entrypoints/speech_to_text/base/serving.py@055e47c2 (_create_speech_to_text), also read @ad5b1a8e"},
	{"errors are {\"error\":{\"message\",\"type\",\"param\",\"code\"}}; an unknown model is 404 NotFoundError \"The model `X` does not exist.\"", "vllm/entrypoints/openai/engine/serving.py@619e4b31 (_check_model)"},
	{"/server_info only with VLLM_SERVER_DEV_MODE=1: {\"vllm_config\": str or, with ?config_format=json, nested JSON, \"vllm_env\", \"system_env\"}", "vllm/entrypoints/serve/instrumentator/server_info.py@4652ef5d"},
	{"/metrics: vllm:* families labelled model_name, engine; vllm:request_success_total{finished_reason}; vllm:cache_config_info{<CacheConfig fields>,engine} 1 without model_name", "vllm/v1/metrics/loggers.py@005a810b (log_metrics_info, make_per_engine)"},
	{"/health is 200 with an empty body; /version answers {\"version\"}", "vllm/entrypoints/serve/instrumentator/health.py@98b137c6 (Response(status_code=200)); /version: instrumentator/basic.py (not re-read)"},
	{"the queue is unbounded by default; --max-num-queued-reqs refuses with 503", "issue 10 / ENGINES.md (not re-read here)"},
	{"stage histograms vllm:request_queue_time_seconds, _prefill_, _decode_, _inference_ (request_latency_buckets 0.3 ... 7680 s) and vllm:e2e_request_latency_seconds are observed once per finished request; vllm:time_to_first_token_seconds (0.001 ... 2560 s) at its first token", "vllm/v1/metrics/loggers.py@005a810b (PrometheusStatLogger.record), vllm/v1/metrics/stats.py@28ed1fb8 (update_from_finished_request)"},
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
	{"newer: srt and vtt are served where the model's adapter has segment timestamps, else 400 \"response_format 'srt' requires a segment-timestamp capability\" (Qwen3-ASR has none); benchseal scores a subtitle answer by its cues' text, never whole", "sglang_omni/serve/speech_to_text.py@f9f24e5a (assemble_speech_to_text_response, SEGMENT_RESPONSE_FORMATS), transcriptions.py@a31e5ed0; the index's tests/ note for qwen3_asr: \"no segment-timestamp capability\""},
	{"0.1.4: an unknown model is 404 {\"error\":{\"message\":\"The model 'X' does not exist.\",\"type\":\"invalid_request_error\",\"param\":\"model\",\"code\":\"model_not_found\"}}", "sglang_omni/serve/speech_errors.py@0ac0a86e (resolve_served_model)"},
	{"newer: /v1/audio/transcriptions no longer checks model (form.model or default_model): a request for another model is answered 200 by the served one; the 404 model_not_found is left on /v1/audio/translations only", "sglang_omni/serve/transcriptions.py@a31e5ed0, charliechenye/sglang-omni sglang_omni/serve/transcriptions.py@70c4540 (2026-08-16); resolve_served_model found nowhere"},
	{"other errors are FastAPI {\"detail\":...}; a missing file is 422", "sglang_omni/serve/transcriptions.py@0ac0a86e (HTTPException), FastAPI validation"},
	{"no /server_info, /get_server_info, /get_model_info or /version: knobs are launch arguments", "sglang_omni/serve/openai_api.py@022b6a3d, launcher.py@03c8f159 (ENGINES.md); openai_api.py@2489a10e"},
	{"Qwen3-ASR defaults (0.1.4): max_running_requests 32, max_new_tokens 128, request_build_max_workers 2, request_build_max_pending 16", "sglang_omni/models/qwen3_asr/config.py@fe0cbea9"},
	{"Qwen3-ASR defaults (2026-08): max_running_requests 64, max_new_tokens 128 (a floor, scaled with the audio's duration), request_build_max_workers 8, request_build_max_pending 32 (builds in flight; the rest wait in a backlog), prefill coalescing (16 requests or 40 ms, when idle, when builds are pending, after builds during decode), pre-LM encoder on with a 4096-entry, 2 GiB cache", "charliechenye/sglang-omni sglang_omni/models/qwen3_asr/config.py@68abc7e (2026-08-14); the index's newest upstream (Qwen3ASRFactoryArgs, EngineArgs) has the same values, one older one prefill_coalesce_wait_ms 24"},
	{"which release is newer is unclear: the row's facts were read as 0.1.4, but the 2026-08 tree (newer code: chunking, srt/vtt) says __version__ = \"0.1.2\"", "charliechenye/sglang-omni sglang_omni/__init__.py@c6bbcc80 (2026-08-20)"},
	{"the pre-LM encoder cache is keyed by the xxh3_128 of the decoded float32 waveform (under a namespace of model and encoder settings): identical audio is served from it, a one-LSB variant misses it; no /metrics family counts it", "charliechenye/sglang-omni sglang_omni/models/qwen3_asr/encoder_service.py@10733c98, sglang_omni/utils/audio.py@abc59597 (audio_fingerprint)"},
	{"/metrics: sglang_omni_pipeline_*, sglang_omni_request_states{state}, sglang_omni_stage_present{stage}, sglang_omni_http_requests_total{method,model_name,route,status}, sglang_omni_http_request_duration_seconds; no cache counter", "sglang_omni/serve/metrics.py@0641581e"},
	{"/health is {\"status\":\"healthy\", ...coordinator fields}", "sglang_omni/serve/openai_api.py@2489a10e (_register_health)"},
	{"overload on /v1/audio/transcriptions is 500 {\"detail\":\"The request queue is full.\"} (QueueFullError stringified; only the speech (TTS) path maps it to 503), after the upload; the queue (waiting + request builds pending) is bounded only with --max_queued_requests; 0.1.4 answered 500 {\"detail\":\"request-build backlog is full ...\"}", "sglang_omni/serve/speech_to_text.py@f9f24e5a (complete_speech_to_text_request), sglang_omni/admission.py@75c59a20, charliechenye/sglang-omni sglang_omni/scheduling/omni_scheduler.py@0f7521a (_waiting_queue_is_full, _reject_queue_full); the 0.1.4 message from issue 10 (not found in the index)"},
}
