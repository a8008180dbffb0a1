package engine

import "net/http"

// TaskTTS is the text-to-speech task's name (internal/task's TTS,
// run.json's protocol.task "tts").
const TaskTTS = "tts"

// SpeechPath is the speech endpoint both engines serve, VoicesPath where
// both list voices.
const (
	SpeechPath = "/v1/audio/speech"
	VoicesPath = "/v1/audio/voices"
)

// The speech streams' shapes (TaskRow.Stream for TaskTTS).
const (
	// SpeechSSE: vLLM-Omni's stream:true, text/event-stream events
	// speech.audio.delta {type, audio (base64), response_format},
	// speech.audio.done {type, usage}, or speech.audio.error in its
	// place; no [DONE].
	SpeechSSE StreamEvents = "speech.audio"
	// SpeechRawPCM: raw s16le bytes over chunked transfer, the end of the
	// body the end of the audio (SGLang-Omni's stream:true; vLLM-Omni's
	// stream_format "audio").
	SpeechRawPCM StreamEvents = "audio/pcm"
)

// vo and so are the commits the speech facts were read at:
// vllm-project/vllm-omni@d6240742 (2026-07-24, read from the fork
// vraiti/vllm-omni, whose main mirrors upstream) and
// sgl-project/sglang-omni@3f4286eb (2026-08-22, read from the fork
// charliechenye/sglang-omni).
const (
	vo = "@d6240742"
	so = "@3f4286eb"
)

// vllmOmniSpeech is vLLM-Omni's /v1/audio/speech, what the tts task and
// the vllm-omni persona rely on.
var vllmOmniSpeech = TaskRow{Task: TaskTTS, Route: SpeechPath, Stream: SpeechSSE,
	Voices: &VoiceList{Path: VoicesPath, Complete: true, Fold: true,
		Source: "vllm-project/vllm-omni vllm_omni/entrypoints/openai/api_server.py" + vo + " (list_voices: {\"voices\": sorted(supported_speakers), \"uploaded_voices\": [...]}), " +
			"serving_speech.py" + vo + " (supported_speakers: the checkpoint's spk_id or speaker_id keys lowercased, the precomputed and the uploaded speakers)"},
	Source: "vllm-project/vllm-omni vllm_omni/entrypoints/openai/api_server.py" + vo + " (POST /v1/audio/speech), serving_speech.py" + vo + " (create_speech)",
	Facts: []Fact{
		{"the body is JSON OpenAICreateSpeechRequest: input (required), model, voice (alias speaker), response_format wav|pcm|flac|mp3|opus (default wav, no aac), speed 0.25-4 (1), stream (false), stream_format sse|audio, task_type CustomVoice|VoiceDesign|Base, language, ref_audio, ref_text, x_vector_only_mode, max_new_tokens, seed; no temperature/top_p; unknown members are dropped",
			"vllm_omni/entrypoints/openai/protocol/audio.py" + vo},
		{"stream:true (or stream_format sse) without stream_format audio is SSE (is_sse_stream); stream_format audio is a raw stream (is_raw_audio_stream); either needs response_format pcm or wav and speed 1, else 400",
			"vllm_omni/entrypoints/openai/protocol/audio.py" + vo + " (is_sse_stream, is_raw_audio_stream), serving_speech.py" + vo + " (_validate_speech_streaming_request)"},
		{"a stream in another format is refused by the request model: 400 \"Streaming (stream=true, stream_format='audio', or stream_format='sse') requires response_format='pcm' or 'wav'. Got response_format='flac'.\"; initial_codec_chunk_frames (>= 0) is a request member (also of batch items and the WebSocket session config) that \"overrides the deploy config\" for the initial codec chunk, which decides the time to first audio (1851 ms -> 233 ms in vllm-project/vllm-omni #938)",
			"vraiti/vllm-omni vllm_omni/entrypoints/openai/protocol/audio.py@6a28291f (validate_streaming_constraints, SpeechBatchItem, StreamingSpeechSessionConfig: initial_codec_chunk_frames), vllm-project/vllm-omni PR #1583, issue #938 (comment 2026-03-11)"},
		{"flac, mp3 and opus bodies are encoded by the server; the simulator encodes flac (github.com/mewkiz/flac, verbatim subframes) and refuses mp3 and opus (400 \"the simulator produces wav, pcm and flac\"): a run in those two cannot be rehearsed on it",
			"vllm_omni/entrypoints/openai/protocol/audio.py" + vo + " (response_format); internal/sim speechFLAC (the simulator's gap)"},
		{"speech metrics newer than d6240742 (PR #6853, merged 2026-08-31): time to first audio at the first non-empty PCM, underrun and continuity, stream completed/aborted counters on the speech path; no code newer than d6240742 was reachable, so their family names are not rows (not read)",
			"vllm-project/vllm-omni PR #6853 (per TTS-ENGINES; ENGINES-R4 T12)"},
		{"SSE: event: speech.audio.delta / data: {\"type\",\"audio\":<base64>,\"response_format\"}; with wav the first delta is the 44-byte header alone (0xFFFFFFFF sizes), the rest s16le; then event: speech.audio.done {\"type\",\"usage\":{input_tokens,output_tokens,total_tokens,input_token_details:{text_tokens,audio_tokens}}}; on an exception speech.audio.error {\"type\",\"error\":{message,type:\"server_error\",param:null,code:500}} in place of done; no [DONE]",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (_generate_audio_sse_events, _generate_audio_chunks, _create_wav_header), protocol/audio.py" + vo + " (SpeechTokenUsage)"},
		{"a raw stream's StreamingResponse (audio/pcm or audio/wav) is returned before any audio is produced: headers arrive before the audio; a wav stream's 44-byte header goes out just before the first PCM chunk; a mid-stream error re-raises in the generator (the response is aborted, no in-band marker)",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (create_speech, _generate_audio_chunks)"},
		{"no stream and no whole body names a sample rate; raw PCM is 24 kHz unless the model's output says otherwise (sample_rate_val = 24000; DEFAULT_AUDIO_SAMPLE_RATE 24000, Qwen3-TTS's)",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (_generate_audio_chunks), vllm_omni/metrics/definitions.py" + vo},
		{"a reference outside 1-30 s is refused: \"Reference audio too short (Xs). At least 1s of clear speech is required.\" / \"Reference audio too long (Xs). Maximum 30s supported\" (ValueError, answered 400)",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (_REF_AUDIO_MIN_DURATION, _REF_AUDIO_MAX_DURATION, _resolve_ref_audio; create_speech: ValueError -> create_error_response)"},
		{"the decoded reference is cached by sha1 of the ref_audio string (_ref_audio_resolve_cache), the Qwen3 speaker artifacts by a hash of the waveform (_make_ref_audio_artifact_cache_key): a one-LSB variant of the clip misses both; no counter of either over HTTP",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (_resolve_ref_audio)"},
		{"errors are vLLM's {\"error\":{message,type,param,code}}; an unknown model is 404 (_check_model); a generation failure is 400 \"Speech generation failed: ...\"; no queue-full or 429 path",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (create_speech)"},
		{"/metrics: vllm_omni:audio_duration_s (histogram, SECONDS_BUCKETS), vllm_omni:audio_rtf (histogram, stage_gen_time_s / audio_duration_s, RTF_BUCKETS), vllm_omni:audio_frames_total (counter), labelled model_name, stage, replica, observed at a request's finish (observe_modality_at_finalize); vllm_omni:audio_ttfp_s, audio_underrun_s and audio_continuity_ok_total only on the chat path; vllm_omni:audio_skipped_requests_total{reason} for a 200 without audio; the request families vllm_omni:requests_success_total, e2e_request_latency_s, prompt/generation_tokens_total count speech requests too",
			"vllm_omni/metrics/modality.py" + vo + ", vllm_omni/metrics/definitions.py" + vo + ", vllm_omni/metrics/prometheus.py" + vo + ", vllm_omni/entrypoints/omni_base.py" + vo + " (observe_modality_at_finalize), serving_chat.py" + vo + " (observe_audio_first_packet)"},
		{"GET /v1/audio/voices lists the voices (uploaded ones after POST /v1/audio/voices); a CustomVoice voice must be in the checkpoint's spk_id",
			"vllm_omni/entrypoints/openai/api_server.py" + vo + ", vllm_omni/entrypoints/openai/tts_adapters/qwen3_tts.py" + vo + " (TTS-ENGINES, not re-read)"},
		{"a request without ref_audio and ref_text (a named voice) is task_type CustomVoice unless its voice is a precomputed speaker; the voice is lowercased and must be one of the checkpoint's speakers (400 \"Invalid voice ...\"), and a checkpoint without speakers (Base) answers 400 \"This model does not support CustomVoice task (no speakers configured)\"; with no voice the speaker is \"Vivian\"; a ref_text without ref_audio makes it Base, which needs ref_audio (400)",
			"vllm_omni/entrypoints/openai/tts_adapters/qwen3_tts.py" + vo + " (Qwen3TTSAdapter.validate), serving_speech.py" + vo + " (_build_tts_params)"},
		{"the prefix-cache cache_salt is a sha256 of input, task_type, language, voice, ref_text, ref_audio, instructions, x_vector_only_mode and speaker_embedding: identical named-voice requests share it (a prefix hit could reuse their KV; deploy/qwen3_tts.yaml turns prefix caching off), a one-LSB reference variant never does",
			"vllm_omni/entrypoints/openai/serving_speech.py" + vo + " (_conditioning_cache_salt)"},
	}}

// sglangOmniSpeech is SGLang-Omni's /v1/audio/speech.
var sglangOmniSpeech = TaskRow{Task: TaskTTS, Route: SpeechPath, Stream: SpeechRawPCM,
	Voices: &VoiceList{Path: VoicesPath, Complete: false, Fold: true,
		Source: "sgl-project/sglang-omni sglang_omni/serve/openai_api.py" + so + " (list_voices), serve/speech_voices.py" + so + " (list_response: DEFAULT_VOICE_PRESETS (\"default\",) and the uploaded voices, sorted case-insensitively; a CustomVoice checkpoint's speakers are not listed)"},
	Source:    "sgl-project/sglang-omni sglang_omni/serve/openai_api.py" + so + " (_register_speech)",
	Unmetered: "SGLang-Omni's main branch serves no /metrics route (no prometheus_client or /metrics in sglang_omni at " + so[1:] + "): its TTS runs have no server counters (not observed)",
	Shedding: &Shedding{Bounded: true, Flag: "--max-queued-requests", Status: http.StatusServiceUnavailable, Shape: OpenAIError,
		Message: "The request queue is full.", DefaultRunning: 16, DefaultQueued: 16,
		Source: "sgl-project/sglang-omni sglang_omni/admission.py" + so + " (QueueFullError.MESSAGE), serve/speech_errors.py" + so + " (speech_generation_error -> service_unavailable: 503 server_error code null), " +
			"pipeline/coordinator.py" + so + " (max_in_flight = max_running_requests + max_queued_requests: reject once tracked), models/qwen3_tts/engine_builder.py" + so + " (16 and 16)"},
	Facts: []Fact{
		{"stream:true requires response_format pcm (else 400 \"stream=true requires response_format='pcm'\", param response_format); there is no stream_format and no speech SSE",
			"sglang_omni/serve/speech_service.py" + so + " (_prepare_generation_updates)"},
		{"a raw PCM stream waits for its first audio chunk before its headers: Content-Type audio/pcm, X-Sample-Rate (the pipeline's), X-Channels: 1, X-Bit-Depth: 16; an error before it is a JSON error, after it the body generator re-raises (aborted, no marker); a rate change mid-stream raises",
			"sglang_omni/serve/openai_api.py" + so + " (_speech_audio_response)"},
		{"a whole body is the encoded audio (WAV: a 44-byte header, 16-bit PCM at the pipeline's rate, 24000 for Qwen3-TTS) with Content-Disposition, X-Prompt-Tokens, X-Completion-Tokens, X-Engine-Time (str of usage.engine_time_s) and X-Finish-Reason; the simulator sends all five (its prompt: a token a character plus 12.5 a reference second with ref_text; its engine time: the service time)",
			"sglang_omni/serve/openai_api.py" + so + " (create_speech), sglang_omni/client/audio.py" + so + " (TTS-ENGINES)"},
		{"flac, mp3 and opus whole bodies are encoded by the server; the simulator encodes flac and refuses mp3 and opus (400 \"the simulator produces wav, pcm and flac\"): a run in those two cannot be rehearsed on it",
			"sglang_omni/serve/openai_api.py" + so + " (create_speech: result.mime_type); internal/sim speechFLAC (the simulator's gap)"},
		{"newer (index, undated): SpeechMetricsMiddleware measures POST /v1/audio/speech in prometheus_client families: sglang_omni:audio_ttfp_seconds, audio_output_duration_seconds, audio_rtf, audio_chunk_interval_seconds, audio_underrun_seconds, audio_continuity_ok_total{threshold_ms}, tts_prompt_tokens_total, and upstream sglang:prompt/generation_tokens_total; at 3f4286eb there is no /metrics for TTS (Unmetered), so benchseal reads none of them yet",
			"sgl-project/sglang-omni sglang_omni/serve/speech_metrics.py@843e9ec9, sglang_omni/metrics/audio.py@ee5df70a (ENGINES-R4 U7)"},
		{"newer (index, undated): speech answers as SSE (speech.audio.delta / speech.audio.done, X-Sample-Rate headers on the SSE response), and GET /v1/audio/speech/{request_id} returns a finished raw stream's {request_id, finish_reason, usage} from a bounded FIFO; at 3f4286eb neither exists, and the persona serves neither",
			"sgl-project/sglang-omni sglang_omni/serve/speech_metrics.py (index ids 70192099386, 70593570101), serve/speech_stream_outcomes.py@3b56fbb2 (ENGINES-R4 U8, U9)"},
		{"errors are {\"error\":{message,type,param,code}}: 400 BadRequestError code 400 with param; 500 server_error code null (any pipeline failure, e.g. an unknown CustomVoice speaker); 503 server_error code null for a full queue or a missing encoder; model is never checked",
			"sglang_omni/serve/speech_errors.py" + so + ", openai_api.py" + so},
		{"input must be a non-empty string (400 \"input must be a non-empty string\", param input)",
			"sglang_omni/serve/speech_service.py" + so + " (validate_input_text)"},
		{"the ad-hoc reference encoding is cached (ReferenceEncodeService) by an xxh3_64 key of the data URI (http references become data URIs; paths: path/size/mtime), with ref_text and x_vector_only_mode: a one-LSB variant misses it; its stats are only logged",
			"sglang_omni/preprocessing/cache_key.py" + so + ", sglang_omni/scheduling/reference_encoder.py" + so + ", models/qwen3_tts/request_builders.py" + so + " (TTS-ENGINES)"},
		{"GET /v1/audio/voices lists preset and uploaded voices (names_only=true: names only), with the uploaded-voice cache's cache_stats",
			"sglang_omni/serve/openai_api.py" + so + " (_register_voices), serve/speech_voices.py" + so + " (TTS-ENGINES)"},
		{"a request without a reference (no ref_audio, no references) and no task_type is CustomVoice: it refuses a ref_audio, ref_text or x_vector_only_mode member (\"Qwen3-TTS CustomVoice does not accept ref_text\": a pipeline ValueError, 500 server_error by TTS-ENGINES' reading of serve/speech_errors.py), and a voice absent or \"default\" speaks as \"Vivian\"",
			"sglang_omni/models/qwen3_tts/request_builders.py" + so + " (build_qwen3_tts_state, normalize_qwen3_tts_task_type, normalize_qwen3_tts_voice, QWEN3_TTS_DEFAULT_CUSTOM_VOICE)"},
		{"the talker's radix prefix-cache key is a blake2b hash of each prompt-embedding row (build_embedding_cache_key_ids), on unless disable_radix_cache: identical named-voice requests build the same prompt, so nothing in them defeats it",
			"sglang_omni/models/qwen3_tts/request_builders.py" + so + " (build_embedding_cache_key_ids)"},
	}}
