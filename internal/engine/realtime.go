package engine

// TaskRealtime is the realtime recognition task's name (internal/task's
// Realtime, run.json's protocol.task "realtime"): a WebSocket session per
// request, the clip streamed as PCM16 chunks at real time.
const TaskRealtime = "realtime"

// RealtimePath is the WebSocket route both engines serve realtime
// recognition on; SGLang-Omni's wants ?intent=transcription beside it.
const RealtimePath = "/v1/realtime"

// The realtime protocols (TaskRow.Stream for TaskRealtime, and the value
// of a realtime target's protocol field).
const (
	// RealtimeDeltas is vLLM's: session.created on connect; the client's
	// session.update {model}, input_audio_buffer.commit (starts
	// generation), input_audio_buffer.append {audio} chunks and a last
	// commit {final:true}; the server's transcription.delta {delta} and
	// one transcription.done {text, usage}; error {error, code}.
	RealtimeDeltas StreamEvents = "vllm"
	// RealtimeSegments is SGLang-Omni's: session.created on connect; the
	// client's session.update {session:{...}}, appends and a commit; the
	// server's cumulative transcription.segment {segment_id, text,
	// is_final, revision} re-decodes, transcription.completed {text};
	// error {error:{type, code, message}}; every server event numbered
	// by event_index.
	RealtimeSegments StreamEvents = "sglang-omni"
)

// RealtimeRate is the sample rate both engines take realtime PCM16 at.
const RealtimeRate = 16000

// vLLM's WebSocket families: a middleware counts every WebSocket scope,
// installed only when the model serves realtime; unlabelled
// (vllm/entrypoints/openai/realtime/metrics.py@b42200fc).
const (
	VLLMWebSocketActive   = "vllm:websocket_connections_active"
	VLLMWebSocketTotal    = "vllm:websocket_connections_total"
	VLLMWebSocketDuration = "vllm:websocket_connection_duration_seconds"
)

// The commits the realtime facts were read at: vllm-project/vllm
// connection.py and protocol.py@055e47c2 (vllm/frontend/entrypoints/
// speech_to_text/realtime/), qwen3_asr_realtime.py@de5f26d5, metrics.py
// @b42200fc; sgl-project/sglang-omni serve/realtime/
// transcription_session.py and events.py@0c940be4,
// transcription_chunking.py@0f617aae.
const (
	vlRT  = "@055e47c2"
	vlQRT = "@de5f26d5"
	vlRTM = "@b42200fc"
	soRT  = "@0c940be4"
	soRTJ = "@0f617aae"
)

// vllmRealtime is vLLM's WS /v1/realtime: what the realtime task and the
// vllm persona rely on.
var vllmRealtime = TaskRow{Task: TaskRealtime, Route: RealtimePath, Stream: RealtimeDeltas,
	Source: "vllm-project/vllm vllm/frontend/entrypoints/speech_to_text/realtime/connection.py" + vlRT + " (handle_connection, handle_event, _run_generation), protocol.py" + vlRT,
	Facts: []Fact{
		{"on connect session.created {id:\"sess-<uuid>\", created}; session.update {model} is required before any commit (model_not_validated) and answers nothing on success (invalid_event without model, model_not_found for another)",
			"vllm/frontend/entrypoints/speech_to_text/realtime/connection.py" + vlRT},
		{"the first input_audio_buffer.commit starts generation over the audio still streaming in; later plain commits are ignored; commit {final:true} ends the audio; transcription.delta {delta} per engine output (possibly empty), then one transcription.done {text: the deltas joined, usage}; the socket stays open after done",
			"vllm/frontend/entrypoints/speech_to_text/realtime/connection.py" + vlRT + " (start_generation, _run_generation)"},
		{"audio is base64 PCM16 LE mono at 16 kHz, never resampled (the old \"24kHz\" comment was corrected); an empty or undecodable append is invalid_audio",
			"vllm/frontend/entrypoints/speech_to_text/realtime/connection.py" + vlRT + ", protocol.py" + vlRT},
		{"errors are {type:\"error\", error:\"<message>\", code}: invalid_json, invalid_event, model_not_found, invalid_audio, model_not_validated, unknown_event, processing_error (after which no done is sent)",
			"vllm/frontend/entrypoints/speech_to_text/realtime/connection.py" + vlRT},
		{"Qwen3-ASR realtime decodes fixed 5 s segments each on its own (the rest after the final commit), up to 64 tokens each; every segment's text begins with its language header \"language <Lang><asr_text>\", which done's text keeps",
			"vllm/model_executor/models/qwen3_asr_realtime.py" + vlQRT + "; vllm #35767"},
		{"vllm:websocket_connections_active (gauge), vllm:websocket_connections_total (counter, at accept), vllm:websocket_connection_duration_seconds (histogram, at close) count every WebSocket, unlabelled",
			"vllm/entrypoints/openai/realtime/metrics.py" + vlRTM},
		{"a session is one engine request that waits between audio chunks as WAITING_FOR_STREAMING_REQ; newer schedulers count such paused sessions against max_num_seqs (num_running = len(self.running) + self.num_waiting_for_streaming_input), older ones admit past them (if len(self.running) == self.max_num_running_reqs); inference time runs from first scheduling to last token, its waits for audio included",
			"vllm/v1/core/sched/scheduler.py@00024d31 (the older gate; the newer one read in copies of the file, no upstream commit stored here), vllm/v1/request.py (RequestStatus)"},
	},
}

// sglangOmniRealtime is SGLang-Omni's WS /v1/realtime?intent=transcription.
var sglangOmniRealtime = TaskRow{Task: TaskRealtime, Route: RealtimePath, Stream: RealtimeSegments,
	Source:    "sgl-project/sglang-omni sglang_omni/serve/realtime/transcription_session.py" + soRT + ", events.py" + soRT + " (PR #1671; served with --enable-realtime)",
	Unmetered: "SGLang-Omni's HTTP metrics middleware skips WebSocket scopes (sglang_omni/serve/metrics.py@0641581e): realtime sessions are not counted (not observed)",
	Facts: []Fact{
		{"every server event carries event_id \"evt_<hex>\" and event_index, counting from 1 at session.created {session:{id, object, model, intent, input_audio_format:\"pcm16\", language, decode_interval_ms:2000, turn_detection}}",
			"sglang_omni/serve/realtime/transcription_session.py" + soRT + " (send, run)"},
		{"session.update {session:{language, turn_detection: null|server_vad, input_audio_format:\"pcm16\"}} answers session.updated; any other key is invalid_event (extra=\"forbid\")",
			"sglang_omni/serve/realtime/events.py" + soRT + " (TranscriptionSessionConfig)"},
		{"the first append opens segment 0; each decode_interval_ms of audio (samples, not wall time) re-decodes the segment from its start, one decode at a time, and sends transcription.segment {segment_id, audio_start_ms, audio_end_ms, text, is_final:false} when the text changed: the whole hypothesis, not a delta; no revision field",
			"sglang_omni/serve/realtime/transcription_session.py" + soRT},
		{"the client's transcription.done ends the input: input_audio_buffer.committed {segment_id}, the final transcription.segment (is_final:true), then transcription.completed {text: the final segments joined, stripped, a space only between spaced scripts}; later events are input_already_done; the socket stays open",
			"sglang_omni/serve/realtime/transcription_session.py" + soRT + ", sglang_omni/serve/transcription_chunking.py" + soRTJ + " (join_transcript_parts)"},
		{"errors are {type:\"error\", error:{type: invalid_request_error|server_error, code, message}}, codes invalid_json, invalid_event, unsupported_event, input_already_done, session_active, unsupported_turn_detection, invalid_turn_detection, invalid_audio, audio_buffer_overflow, transcription_failed, internal_error",
			"sglang_omni/serve/realtime/transcription_session.py" + soRT},
		{"audio is base64 PCM16 LE mono at 16 kHz, never resampled", "sglang_omni/serve/realtime/transcription_session.py" + soRT + " (RealtimeAudioBuffer), audio_buffer.py@01782f8f"},
	},
}
