package engine

// TaskChatAudio is the audio chat task's name (internal/task's ChatAudio,
// run.json's protocol.task "chat-audio").
const TaskChatAudio = "chat-audio"

// ChatPath is the chat completions endpoint both Omni engines serve.
const ChatPath = "/v1/chat/completions"

// ChatChunks is the shape of a streamed chat answer (TaskRow.Stream for
// TaskChatAudio): text/event-stream, data: {"object":
// "chat.completion.chunk", "choices":[{"delta":{"content"},
// "finish_reason"}], "usage"?} events, a last one with finish_reason,
// then data: [DONE].
const ChatChunks StreamEvents = "chat.completion.chunk"

// The commits the chat facts were read at: vllm-project/vllm-omni
// serving_chat.py@2561d0d6 (its newest stored version; the mirror's
// snapshot, be81443c, 2025-12-28, refused stream:true), vLLM's
// chat_utils.py@bd5ec6d5 (which vLLM-Omni's parse_chat_messages_futures
// delegates content parts to), and sgl-project/sglang-omni@2489a10e
// (2026-04-05, its snapshot) with protocol.py@042173f5.
const (
	voChat   = "@2561d0d6"
	vlChat   = "@bd5ec6d5"
	soChat   = "@2489a10e"
	soProto  = "@042173f5"
	voMirror = "@be81443c"
)

// vllmOmniChat is vLLM-Omni's /v1/chat/completions as Qwen3-Omni is
// served on it: what the chat-audio task and the vllm-omni persona rely on.
var vllmOmniChat = TaskRow{Task: TaskChatAudio, Route: ChatPath, Stream: ChatChunks,
	Source: "vllm-project/vllm-omni vllm_omni/entrypoints/openai/serving_chat.py" + voChat + " (create_chat_completion, chat_completion_stream_generator)",
	Facts: []Fact{
		{"content parts are vLLM's: {\"type\":\"input_audio\",\"input_audio\":{\"data\":<base64>,\"format\":\"wav\"}} is read as the URL data:audio/<format>;base64,<data>, {\"type\":\"audio_url\",\"audio_url\":{\"url\"}} as that URL; \"text\" parts are the prompt",
			"vllm-project/vllm vllm/entrypoints/chat_utils.py" + vlChat + " (MM_PARSER_MAP, AsyncMultiModalContentParser.parse_input_audio, parse_audio); vllm-project/vllm-omni vllm_omni/entrypoints/chat_utils.py" + voMirror + " (parse_chat_messages_futures delegates to _parse_chat_message_content_part)"},
		{"a stream must name its output modalities (assert request.modalities, \"Streaming request must specify output modalities\"); each chunk carries \"modality\"; the first text chunk is delta {role, content: \"\"}",
			"vllm_omni/entrypoints/openai/serving_chat.py" + voChat + " (chat_completion_stream_generator)"},
		{"usage (prompt_tokens, completion_tokens, total_tokens) is sent in a stream only with stream_options.include_usage (should_include_usage), in a last chunk after the finish_reason",
			"vllm_omni/entrypoints/openai/serving_chat.py" + voChat + " (should_include_usage)"},
		{"an error inside a stream is data: {\"error\":{...}} (create_streaming_error_response) followed by data: [DONE]: a 200 that is no answer",
			"vllm_omni/entrypoints/openai/serving_chat.py" + voChat + " (chat_completion_stream_generator)"},
		{"the mirror's snapshot answered stream:true with RuntimeError(\"Not support streaming output now.\"): a build that old is measured whole (no time to first token)",
			"vllm_omni/entrypoints/openai/serving_chat.py" + voMirror + " (create_chat_completion)"},
		{"limits (--limit-mm-per-prompt, the longest audio Qwen3-Omni's processor takes) were not read: not rows",
			"not read"},
	},
}

// sglangOmniChat is SGLang-Omni's /v1/chat/completions.
var sglangOmniChat = TaskRow{Task: TaskChatAudio, Route: ChatPath, Stream: ChatChunks,
	Source:    "sgl-project/sglang-omni sglang_omni/serve/openai_api.py" + soChat + " (_register_chat_completions, _chat_stream, _build_chat_generate_request)",
	Unmetered: "SGLang-Omni's main branch serves no /metrics route at " + soChat[1:] + " for chat: its chat runs have no server counters (not observed)",
	Facts: []Fact{
		{"audio input is the top-level extension \"audios\": a list of paths or URLs (data:audio/wav;base64,<...> decoded by _load_data_url), passed as metadata[\"audios\"]; messages[].content is Any and reaches the model's preprocessor as it is (only Ming-Omni's reads input_audio/audio_url parts)",
			"sgl-project/sglang-omni sglang_omni/serve/protocol.py" + soProto + " (ChatCompletionRequest.audios), serve/openai_api.py" + soChat + " (_build_chat_generate_request), preprocessing/resource_connector.py" + soChat + " (_load_data_url), models/ming_omni/components/preprocessor.py" + soChat},
		{"modalities default [\"text\"]; a stream is text/event-stream chat.completion.chunk events, the first delta with role \"assistant\" (and the first text), a finish chunk with an empty delta, finish_reason and usage (whenever the pipeline reported it, no stream_options needed), then data: [DONE]",
			"serve/openai_api.py" + soChat + " (_chat_stream), serve/protocol.py" + soProto + " (ChatCompletionStreamResponse, UsageResponse)"},
		{"a pipeline error answers 500 {detail} before a whole answer; in a stream an exception ends the body without [DONE]",
			"serve/openai_api.py" + soChat + " (_chat_non_stream, _chat_stream)"},
	},
}
