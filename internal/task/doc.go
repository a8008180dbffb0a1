// Package task says what one request of a benchmark is: its corpus (the
// item type and its loaders), the endpoint it goes to, the request
// envelope its input is sent in (per target and item), the input's
// variants and the bytes they are sent as (a splice of any width,
// including a base64 view), which answers are streams and how an answer
// is decoded, the rule that makes it a success, the seconds RTFx counts,
// and the quality metric claims.json keeps. Task is the seam, composed of
// small roles (request.go: Enveloper, Streamer, Seconder; corpus.go:
// Loader; task.go: the rest): the runner (internal/bench) sends and
// decodes through it, claims computes the metric through it, verify
// re-derives through it. Beyond Task, optional roles (roles.go) make the
// core name no task: Words (what the report and the CLI say of its
// input, output and work, in every language the report has), Figurer
// (its own figures: an accumulator per level and repeat, Add(record) and
// Close() -> named figures with units, nil not observed, which claims
// seal, verify recomputes and the report draws in one table), Checker
// (record checks verify runs under check 5, given the run), ServerCounter
// (a server histogram check 9 holds the records to), ConnectionCounter
// (a server counter of connections check 9 holds sessions to), Statuser
// (a success status other than 200), Sessioner (a request that is a
// session over a connection of its own), Formatter, Rescorer.
//
// ASR, the OpenAI audio transcription request (POST
// /v1/audio/transcriptions, multipart/form-data with the clip as "file"),
// is the first implementation. TTS (tts.go, tts_audio.go, tts_stream.go, tts_flac.go,
// tts_roles.go) is the second: POST /v1/audio/speech with a JSON body whose ref_audio is the
// reference clip as a data:audio/wav;base64, URL (WAVBase64: every
// request sends its own 1-LSB variant); its text corpus is LoadTextCorpus
// (JSONL, SeedTTS meta.lst, plain text); an item without a reference clip
// (a named voice) is a Clip with no WAV (Clip.NoInput), its body the JSON
// without ref_audio, sent unchanged (nothing to perturb); its output is the produced
// audio's facts (Audio, as JSON in the record's text), its rule
// TTSSuccessRule (classes silent, undecodable, too_short), its seconds
// the produced audio's, its quality the WER of a round trip through an
// ASR server (tts_heard.go, run --asr-target), and its figures RTF, time
// to first audio and seconds per character (tts_roles.go, with its words
// and its same-audio check). ChatAudio (chat.go, chat_roles.go) is the
// third: POST /v1/chat/completions with the clip as an input_audio
// content part (audio_url, or SGLang-Omni's top-level audios, by the
// target's audio_part) beside a text prompt, sent as base64 (WAVBase64);
// its answer's text and token counts are its output (ChatAnswer, as JSON
// in the record's text), its rule ChatSuccessRule, its quality the WER of
// the answer against the clip's transcript (its default prompt asks for
// one), its figures TTFT, inter-token latency and output tokens per
// second. Realtime (realtime.go, realtime_session.go, realtime_roles.go)
// is the fourth, and the first that is no HTTP POST: a Sessioner, whose
// request is a WebSocket session (github.com/coder/websocket) the runner
// hands it (SessionRequest: the variant's WAV, the records' clock, the
// runner's pacer, run.json's streaming rule, schemas.Realtime). It
// streams the variant's PCM16 samples in chunks at their planned times
// in the target's protocol (vLLM's or SGLang-Omni's, internal/engine's
// realtime rows), keeps every server event with its receive time
// (RealtimeSession, as JSON in the record's text), and fails a session
// the server ended with an error event (ErrSession) or the client did
// not pace (ErrLateStream). Its success status is the handshake's 101
// (Statuser), its figures time to first partial, finalisation lag,
// revisions, the stream's RTF and chunk lateness, its checks the
// chunking, pacing, stream hash, event order and final text
// (CheckRecords), its server counter vLLM's accepted WebSockets
// (ConnectionCounter).
//
// # The registry and run.json
//
// A run records its task's Name in run.json (protocol.task). verify,
// replay (session.Sealed.Plan) and claims' callers pick the
// implementation with ForRun, run --task NAME with Named: an absent
// name is DefaultName, "asr" (runs made before it was recorded were all
// ASR; Named is the only place that defaults), any other name must be registered
// (Register, from an init function), else the run is refused with an
// *UnknownError, never verified as ASR. claims computes the metric of
// the run's task with ForRun too (claims.Recompute).
//
// # Scoring (scoring.go)
//
// A Task's scoring side is two small interfaces: Rule, the success rule
// the runner applies to an answer and verify's check 7 applies again to
// every record (its name is run.json's protocol.success_rule), and
// Quality, the metric claims.json keeps per level and repeat. ASR's
// rules live here, not in claims: ScoredText (what scoring sees of a
// transcript), WER (its metric), and Rescore (benchseal score), with one
// pairing rule, ScorePair, for both.
//
// # Adding a task (text-to-speech, say)
//
// A TTS task is a new file here, a Task implementation and its tests,
// registered in an init function; run --task (bench.Plan.Task) selects it
// for a run.
// What each method must provide, for TTS (input text, output audio):
//
//   - Name: the name run.json records ("tts"); never change it once runs
//     carry it.
//   - Path: the endpoint, e.g. "/v1/audio/speech".
//   - Envelope (request.go): the body around the input, per target and
//     item: for TTS a JSON object {"model":…,"voice":…,"input":"<the
//     item's Speak>","ref_audio":"data:audio/wav;base64, with the
//     input's bytes between Prefix and Suffix ("}), the target's fields
//     as JSON members. The runner builds every (target, item)'s envelope
//     before the sweep and sends Prefix, the variant's bytes
//     (Input.Splice) and Suffix, copying nothing per request, so the
//     input's bytes must be valid inside the envelope as they are.
//   - Decode, DecodeStream: the answer's output as a string the records
//     keep as text (for TTS, whatever Quality needs: e.g. the audio's
//     length and SHA-256, or its transcript if the task transcribes it;
//     records do not keep raw audio).
//   - Score: the success rule on that output (tts.go: decodable audio of at least MinSeconds with speech energy, TTSSuccessRule) and
//     the schemas.Err* class of a failure; SuccessRule its name, which
//     run.json records and verify and replay hold the run to.
//   - IsStream: which 200 answers to a stream request are streams read
//     by DecodeStream (ASR: text/event-stream; TTS: audio/pcm, a streamed
//     audio/wav, vLLM-Omni's speech SSE, whose first PCM bytes are its
//     first output); a task whose streams say something in their headers
//     is also a HeaderStreamer (TTS: SGLang-Omni's X-Sample-Rate), and a
//     task that reads some whole answers as they come is a WholeReader
//     (TTS: a whole WAV or PCM body, its first output its first PCM
//     bytes, not its headers).
//   - Seconds, RecordSeconds: the input's seconds from the frames and
//     rate run.json's corpus keeps, and the seconds a record's RTF
//     counts (ASR: the input's; TTS: the audio it produced, from its
//     decoded output).
//   - LoadCorpus: the task's items (Clip; LoadWAVCorpus for WAV inputs,
//     whose SeedTTS meta.lst items carry Speak).
//   - Input: the input's variants. Positions is how many there are, a
//     variant changes one position of the input, Variant returns the
//     SHA-256 of the changed input and the changed byte's offset, Splice
//     the bytes as sent, of any width (WAVBase64: a reference clip as the
//     base64 text of a data: URL, re-encoding only the changed
//     4-character group; Whole, the input sent unchanged). For text, a position could be
//     one ASCII letter whose case is flipped (one byte, the text still
//     valid UTF-8 and JSON); whatever it is, it must be a pure function
//     of the input and the position, since check 5 re-derives every
//     record's input_sha256 from it.
//   - Quality: the metric over a repeat's measured records and the
//     corpus' references; claims.json keeps it as "wer", and Metric names
//     it for the report and compare. A RoundTripper's figure is measured
//     by another server after the sweep (TTS: an ASR round trip,
//     internal/roundtrip, whose transcripts are sealed in roundtrip/):
//     claims compute it over what that server heard of each record, with
//     Spoken's references (the text each request spoke), so verify
//     recomputes it without a server.
//
// # Not yet behind Task
//
// The corpus is the task's (Loader, corpus.go): a Clip is one item, a WAV
// and what a request may say of it (its reference, language, and Speak,
// the text a speech request speaks: SeedTTS meta.lst's fourth field).
// LoadWAVCorpus (LoadWAVCorpusWith, for a Parquet corpus's columns) is
// the one WAV corpus loader (folders of WAV, FLAC or MP3 clips, JSONL
// manifests, SeedTTS meta.lst, LibriSpeech folders, Common Voice TSVs,
// Hugging Face Parquet shards, one file: corpus_layouts.go) and IndexWAVs
// the one index of a folder's clips by SHA-256 (replay's --audio,
// verify's). A clip that is not a WAV is decoded once, when it is read
// (corpus_decode.go: FLAC losslessly with github.com/mewkiz/flac, MP3
// with github.com/hajimehoshi/go-mp3), and the decoded WAV is the clip
// from then on: sent, perturbed, sealed and re-derived; Clip.SourceFormat
// and SourceSHA256 keep what it was decoded from (run.json's corpus
// source_format, source_sha256). IndexWAVs also indexes .flac and .mp3
// files, by their own SHA-256, so that a bundle sealed with --no-audio
// finds a decoded clip by its source_sha256 in the original corpus;
// ReadIndexed decodes it again. run.json's corpus entries
// (frames, channels, sample rate, check 5's length check, the variant
// budget) still describe WAV clips: a text corpus needs entries of its
// own; Input.Check is where verify compares an input with its entry.
//
// The runner calls a Task on its hot path: Envelope once per target and
// its For once per (target, item) before the sweep, Input once per input
// before its first step, Variant and Splice while a step is planned
// (before its timed phase); the per-request methods allocate nothing of
// their own beyond what decoding the answer needs (BenchmarkRequestPath
// in internal/bench measures it).
//
// This package imports schemas, perturb, internal/engine, internal/score
// and internal/verdict (the one percentile) (and github.com/mewkiz/flac,
// the FLAC decoder); it never imports the runner or internal/claims (which
// imports it for the metric), so claims and verify may use it.
package task
