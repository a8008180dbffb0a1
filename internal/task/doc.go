// Package task says what one request of a benchmark is: the endpoint it
// goes to, the request envelope its input is sent in, how the answer is
// decoded (a whole body or a stream), the rule that makes it a success,
// and the seconds of input that RTFx counts (which verify's check 5
// re-derives from run.json's corpus). Task is the seam: the runner
// (internal/bench) sends and decodes through it, verify re-derives
// through it, and a new kind of request (text-to-speech, say) is a new
// implementation here, not edits across bench, claims and verify.
//
// ASR, the OpenAI audio transcription request (POST
// /v1/audio/transcriptions, multipart/form-data with the clip as "file"),
// is the first implementation.
//
// The runner calls a Task on its hot path: Envelope is called once per
// target, and the per-request methods allocate nothing of their own
// beyond what decoding the answer needs (BenchmarkDo in internal/bench
// measures it).
//
// This package imports schemas, internal/engine and internal/claims' text rule; it
// never imports the runner, so verify may use it.
package task
