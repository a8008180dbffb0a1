// Package ttscompat applies the engines' own TTS benchmark clients'
// definitions to benchseal's records of a tts run (--compat vllm-omni-tts,
// --compat sglang-omni-tts): their success counting above all, which
// counts answers benchseal's rule fails (a 200 with silent or too short
// audio). A view for comparing with their published figures, never
// benchseal's own claims.
//
// vLLM-Omni's client (`vllm bench serve --omni --backend
// openai-audio-speech`, vllm-project/vllm-omni
// vllm_omni/benchmarks/patch/patch.py@d6240742): success is HTTP 200,
// zero audio only logs a warning; duration is bytes ÷ 2 ÷ channels ÷
// 24000 (its env defaults); audio_rtf = latency ÷ duration (median and
// mean published); audio_ttfp = first non-empty chunk − send;
// audio_throughput = Σ duration ÷ benchmark wall time.
//
// SGLang-Omni's client (benchmarks/eval/benchmark_tts_seedtts.py,
// metrics/performance.py, sgl-project/sglang-omni@3f4286eb): success is
// HTTP 200 with audio of more than 0 s (streamed: non-empty PCM of whole
// frames; whole: a WAV of duration > 0); rtf_mean = the mean over
// successes of elapsed ÷ duration; throughput_qps = completed ÷ wall;
// audio_throughput_s_per_s = Σ duration ÷ wall.
//
// What the records cannot reproduce is said, never guessed: a body
// benchseal could not decode (undecodable) has no duration in its
// record, so it is counted as the peer counts it but adds no seconds;
// a stream that broke off (stream_truncated) is a failure for both
// clients (aiohttp raises on a cut chunked body; read, not run); the wall
// time is the repeat's measured window (first send to last end), not the
// peer's whole benchmark; whole frames are not checked (records keep
// seconds, not byte counts).
package ttscompat
