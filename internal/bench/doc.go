// Package bench is benchseal's runner: it drives the targets' endpoint of
// the run's task (ASR: /v1/audio/transcriptions) with a concurrency sweep
// (closed loop, the default) or an offered-rate sweep (open loop,
// Plan.Rates; openloop.go) and writes the run directory of docs/bundle.md as it
// goes.
//
// What one request is (its endpoint, the envelope around the input per
// target and corpus item, the input's variants and the bytes they are sent
// as, which answers are streams and how an answer is decoded, the success
// rule and the seconds RTFx counts) is the Plan's Task (internal/task; nil
// is task.Named(""), the registry's default, ASR), and so is the corpus
// (Plan.Corpus is the task's items, task.Clip, read by its Loader; Clip,
// LoadCorpus and LoadClip here are those names kept for the runner's
// callers). The runner owns the schedule, the variant numbering, the
// shared-slice bodies and the records, and asks the Task for the rest.
//
// # Protocol
//
// Run sweeps level -> repeat -> target, the target order reversed on every
// even repeat. One target at one level and repeat is a Step: C workers take
// request indices from a shared counter until the step's warm-ups are done,
// wait for each other, then do the same for the measured requests; a
// worker sends, reads the whole response, records, and only then takes the
// next index, so never more than C requests are in flight. Request i of a
// phase sends clip i mod len(corpus).
//
// An open-loop plan's levels are offered rates instead, numbered 1..n
// (the Step's and records' concurrency is that number): each phase sends
// request i at the phase's start plus its offset in internal/schedule's
// schedule (seed, rate, burstiness, repeat, the phase's request count),
// sleeping to that absolute deadline (a Go timer to 2 ms before it,
// nanosleep(2) for the rest) and then waiting for one of
// MaxConcurrency slots (none: a slot per request); the record's planned_ns
// is that deadline on start_ns's clock. Plan.Ramp gives the warm-ups a
// ramp's offsets (schedule.RampOffsets) and their count; Plan.Fixed gives
// the one level's measured requests a trace's offsets; Plan.Search
// (findrate.go) chooses each next level's rate from the records of the
// levels before it, as claims' RateSearch says, and writes run.json again
// after each level.
//
// # Warm-ups that fail
//
// When every planned warm-up of a step failed with an error that can pass
// (a 5xx, 408, 429, a timeout, a reset connection, an answer not
// understood), the step sends one of them again, one at a time, at most
// WarmupRetries (3) times, stopping at the first success: retry k resends
// warm-up k mod w (its variant, its bytes) as seq w+n+k, phase warmup, so
// the planned seqs and variant numbers stay where they were; run.json
// records protocol.warmup_retries. A target whose warm-ups (retries
// included) all failed is stopped ("warmup_all_failed") when it has not
// succeeded a request earlier in the run, or when the last error cannot
// pass (a refused connection: no server; a 4xx: the request is wrong). A
// target that answered earlier goes on to the step's measured requests
// (a "warmup_failed" event and note say so), and is stopped only when they
// all fail too: warm-up failures alone never stop it.
//
// Every request sends its own variant (but an item without input,
// Clip.NoInput: a tts named voice, sent unchanged, variant -1, numbered
// never, and skipped by the variant budget): the n-th variant of a clip (n
// counted over the whole run in schedule order, warm-ups included) flips
// sample perturb.Plan{Seed}.Index(clip sha, samples, n). n counts every
// request the protocol plans, sent or not: a step skipped because its
// target stopped, and the unsent rest of the step it stopped in, keep
// their numbers, so the numbering is run.json's alone (a verifier
// re-derives it) and the other targets' numbers do not depend on when a
// server went away. A step's variants, their SHA-256 and the bytes each
// sends (the task's Splice) are computed, on every core, before its first
// request, by the one job builder steps and the cache probe share
// (newJobs); the hot loop only sends. The body has a Content-Length and
// is the task's envelope of the (target, item), built before the sweep,
// around the variant's bytes as shared slices (head, the changed bytes,
// tail): for ASR multipart/form-data, a per-target prefix (model, sorted
// form fields, stream, the file part header), the clip with one byte
// changed and the closing boundary; for an input sent as base64
// (task.WAVBase64) the clip's text with the one changed 4-character group
// re-encoded. No request copies its input.
//
// Success is HTTP 200 and a non-empty transcript (after text_scored's
// stripping: a bare Qwen3-ASR prefix is empty_text). A non-200 answer
// is http, or shed when it is an engine's overload refusal (its status
// and message in internal/engine's Shedding: SGLang-Omni's 500 "The
// request queue is full." is shedding, not a server failure). A response body past
// 64 MiB fails the request (decode) rather than being buffered. start_ns is taken just
// before the request is sent, end_ns after the last byte of the response;
// first_byte_ns is when the response headers arrived, or, with Stream and
// an answer the task reads as a stream (Task.IsStream: ASR's
// text/event-stream; tts's raw PCM, streamed WAV and speech SSE, whose
// first output is the first non-empty PCM bytes; a task.HeaderStreamer
// is handed the answer's headers too), or a whole answer the task reads
// as it comes (a task.WholeReader: tts's whole WAV or PCM body), its
// first output; for ASR the first SSE event carrying
// text, whatever its kind: a
// non-empty delta (vLLM's {"choices":[{"delta":{"content"}}]} chunks or
// OpenAI's transcript.text.delta events) or, when no delta came before it,
// the final transcript.text.done with its text; a stream with no text has
// none (0). text keeps the transcript as returned;
// text_scored drops Qwen3-ASR's raw "language X<asr_text>" prefix.
//
// # Reading a response
//
// A response is read by what the server says, not by what was asked: a
// body labelled JSON (Content-Type application/json), or one that parses
// as an object with a "text" string, yields that "text" whatever
// response_format was requested, and when a plain format (text, srt, vtt)
// was asked the record says so (response_note "json_body"): vLLM answers
// response_format=text with {"text","usage"} as application/json. An srt
// or vtt answer is scored by its cues' text, numbers, timings and tags
// dropped (response_note "subtitle_cues"), never as the body whole. A
// stream succeeds only when it ends as its engine ends a good one: a final
// event (a choice with finish_reason, vLLM; transcript.text.done,
// SGLang-Omni) and then data: [DONE]. An error event (vLLM
// data: {"error":{...}}, SGLang-Omni data: {"type":"error",...}) fails the
// request as stream_error with the server's message in error; a stream
// that ends without its final event or without [DONE] fails as
// stream_truncated. Either keeps the text read so far in text.
//
// # Sessions
//
// A task whose request is a session (task.Sessioner: realtime) is not
// sent as a POST: do hands it the variant's WAV, the records' clock, a
// pacer (session.go sleepUntil: a Go timer to within coarseMargin of a
// deadline, then sleepFine, as the open loop's dispatcher) and the
// plan's streaming rule (Plan.Realtime, sealed as run.json's
// protocol.realtime), and keeps what it returns: the record's start is
// the dial's, its first byte the first event with text, its end the
// final event's, its text the session's timeline (a failed one's too),
// its status the task's SuccessStatus (the handshake's 101). Preflight
// sets a realtime target's protocol field from its engine's realtime row
// where the target names none.
//
// # Re-measuring a stalled step
//
// After each closed-loop step the runner applies the stall rule verify's
// check 7 holds the records to (internal/claims' Stalls, one function for
// both): a step whose stalls break it is measured again, whole, at most
// MaxRemeasures times, and the last attempt is kept. A discarded
// attempt's records move to records/<t>/attempts/c<C>-r<R>-a<k>.jsonl; the
// hooks see Step.Attempt and StepResult.Discarded (the recorder marks its
// steps.jsonl line and moves its scrapes); the kept attempt's records say
// attempt k and its request ids end "-a<k>" (AttemptRequestID); a
// re-measured attempt numbers its variants past every number the plan
// uses. Result.Discarded lists the attempts dropped, Result.Stalled the
// steps whose last attempt still broke the rule (attempt.go).
//
// # Request ids
//
// Every request carries X-Request-Id: RequestID(seed, target, C, R, seq),
// "bs-<16 hex of SHA-256(seed LE64, target)>-c<C>-r<R>-s<seq>", unique in
// a run and re-derived from run.json and the record; the record keeps it
// as request_id, and the id the server gave as server_request_id (the
// X-Request-Id response header, as SGLang-Omni's transcription-<uuid>; or
// a stream chunk's id, as vLLM's transcribe-<request_id>), so that server
// logs and events join the records.
//
// # Run directory
//
// Run refuses an existing directory, checks that every target answers GET
// /v1/models (and settles the model when a target serves exactly one)
// before creating anything, then writes inputs/<sha256>.wav (the original
// clips), run.json (complete=false), records/<target>/c<C>-r<R>.jsonl (R
// 1-based; one line per request, written as it ends, several lines to a
// write(2) when workers finish together, so a crash leaves valid JSONL
// minus at most the lines not yet written), and at the end
// run.json again (replaced atomically, complete=true, ended_at) and
// claims.json, computed by internal/claims from the files on disk. Every
// file is created through internal/newfile: none is ever overwritten but
// run.json, which is replaced whole.
//
// # Interrupts
//
// When the context is cancelled, no new request starts; requests in flight
// finish within the timeout (drain). Run then writes run.json with
// complete=false, incomplete="interrupted" and an "interrupted" event, and
// claims.json from what was measured, and returns ErrInterrupted with the
// Result.
//
// # Hooks
//
// Fingerprints, telemetry samplers, server probes and launchers join a run
// through Hooks (WithHooks): before and after the sweep and each step,
// with the run directory and run.json (Dir) at hand. A run that fails
// before its first request (writing the run directory, a BeforeSweep
// hook: an authority that does not date the plan) removes what it made,
// parents included, so the same command can run again; once a request was
// sent, the directory is never removed.
//
// # A server that goes away
//
// WithTargetStop gives the runner a channel closed when a target's server
// is gone (a launched server that exited). From then on no request of that
// target starts (in-flight ones end as they will), its remaining steps are
// skipped while the other targets go on, a "server_exited" event and a
// note are recorded, and at the end run.json says the run is incomplete
// ("server a exited during the run (...)"), claims.json holds what was
// measured, and Run returns the Result with a *TargetStoppedError.
//
// A server that goes away without the runner being told (one benchseal did
// not launch, killed or crashed) is found from the records: when the last
// measured request of every worker of a step failed to connect or was
// reset (error class connect: refused; reset: the connection closed or
// reset after the request was sent, as requests in flight when a server
// dies end), at least one refused, the target
// is stopped the same way, with a "server_unreachable" event and note, and
// Run returns a *TargetStoppedError naming it (Unreachable), even when that
// step was the run's last.
//
// claims.json is computed with the run directory's telemetry/ (samples
// and raw cache counters written by hooks), as a verifier recomputes it.
//
// The HTTP transport is one per target, keeps an idle connection per
// worker, never negotiates HTTP/2 or compression, and takes proxies from
// the environment (HTTP_PROXY, ...), which Go never uses for loopback.
//
// # Own code where a library would do
//
// Three things on the hot path are the runner's own, each because the
// library's way costs the client CPU that the server under test shares
// (docs/PERFORMANCE.md has the profiles and loadcmp's paired rounds):
//
//   - Records are encoded by appendRecord, not encoding/json: the same
//     bytes (TestAppendRecordMatchesEncodingJSON sets every field of
//     schemas.Record through reflection and compares; a field added there
//     fails it until it is written here), without reflection or
//     allocation.
//   - The transport's connections (vecConn) write each request, its
//     header block and its body's shared segments, in one writev(2):
//     net/http would flush the header block alone and copy the body 32
//     KiB at a time through a buffer. Any other write goes through as
//     before; the bytes on the wire are the same
//     (TestRunRecordsAndBodiesExact hashes them at the server).
//   - The open loop's dispatcher, and a session's pacer, sleep the last
//     2 ms before a deadline in nanosleep(2) on Linux (sleepFine): the runtime's timers wake an
//     idle process through epoll_wait, whose timeout counts whole
//     milliseconds, so a time.Timer fires up to 1 ms late.
//
// # Imports
//
// It owns the closed-loop runner: the request schedule, the HTTP client,
// the records writer and the run directory it writes. Must never import:
// internal/sim, verify, internal/report. Why: the client and the simulator
// share no code, so the simulator cannot agree with the client by
// construction.
package bench
