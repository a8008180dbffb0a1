package schemas

// Phases of a record.
const (
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
	// PhaseProbe: a request of the active cache probe (records/<target>/
	// probe-<N>.jsonl), never part of the sweep's claims.
	PhaseProbe = "probe"
)

// Error classes of a failed request.
const (
	ErrHTTP = "http" // a status other than 200
	// ErrShed: the server refused the request because its queue was full,
	// as an engine of internal/engine's table sheds (SGLang-Omni's 500
	// {"detail":"The request queue is full."}, vLLM's 503): overload the
	// server turned away, not a failure of it. Older records counted it as
	// ErrHTTP.
	ErrShed    = "shed"
	ErrTimeout = "timeout" // the request timed out
	ErrConnect = "connect" // no connection could be made (refused, no route, DNS)
	// ErrReset: the connection was made and the request sent, then it was
	// reset or closed (EOF) before the whole answer came: a server that
	// died or dropped the connection mid-request. Records made before it
	// was told apart have connect.
	ErrReset     = "reset"
	ErrEmptyText = "empty_text" // 200 with an empty transcript
	ErrDecode    = "decode"     // the response body was not understood
	ErrCanceled  = "canceled"   // the run was interrupted while in flight
	// ErrStreamError: the stream carried the server's error event (vLLM
	// data: {"error":{...}}, SGLang-Omni data: {"type":"error",...}); its
	// message is kept in Error.
	ErrStreamError = "stream_error"
	// ErrStreamTruncated: the stream ended without its engine's final
	// event (a chunk with finish_reason, or transcript.text.done) and
	// data: [DONE].
	ErrStreamTruncated = "stream_truncated"
)

// Notes a record may carry about how its response was read.
const (
	// NoteJSONBody: a non-JSON response_format (text, srt, vtt) was asked
	// for and the server answered a JSON object with "text" anyway (vLLM
	// does, with Content-Type application/json); the transcript is that
	// field, not the body.
	NoteJSONBody = "json_body"
	// NoteSubtitleCues: a subtitle format (srt, vtt) was asked for and
	// answered; the transcript is its cues' text, numbers, timings and
	// tags dropped, never the body whole.
	NoteSubtitleCues = "subtitle_cues"
)

// Record is one line of records/<target>/c<C>-r<R>.jsonl: one request,
// warm-ups included. It is a core every task's request has (ids, phase,
// variant, the seconds RTFx counts, timing, status) and the task's
// payload (Output), which the core never reads: internal/task decodes,
// scores and counts it. run.json's protocol.task discriminates the
// payload (a run has one task; absent, the run predates the field and is
// ASR's, internal/task.ForRun). The JSON names are those of the first
// task's records, ASR's, so every record written before the split
// decodes as an ASR payload. The *_ns fields are monotonic nanosecond
// offsets from Run.StartedAt.
type Record struct {
	Target      string `json:"target"`
	Concurrency int    `json:"concurrency"`
	Repeat      int    `json:"repeat"` // 1-based
	Phase       string `json:"phase"`  // PhaseWarmup or PhaseMeasure
	Seq         int    `json:"seq"`    // request index within the level/repeat, warm-ups first
	Worker      int    `json:"worker"`
	Clip        string `json:"clip"` // Clip.ID
	// Variant counts the variants of this clip across the run (0-based); the
	// plan maps (seed, clip, variant) to SampleIndex. -1 with --no-perturb.
	Variant     int64  `json:"variant"`
	SampleIndex int64  `json:"sample_index"` // -1 with --no-perturb
	ByteOffset  int64  `json:"byte_offset"`  // -1 with --no-perturb
	InputSHA256 string `json:"input_sha256"` // of the bytes sent
	// Seconds is what RTFx counts of the request, as its task counts it
	// (internal/task's Seconds; ASR's: the clip's audio seconds, hence
	// the JSON name).
	Seconds     float64 `json:"audio_seconds"`
	StartNs     int64   `json:"start_ns"`
	FirstByteNs int64   `json:"first_byte_ns"` // headers' arrival, or streamed: the first event carrying output (delta or final); 0 if none
	EndNs       int64   `json:"end_ns"`
	Status      int     `json:"status"` // HTTP status, 0 if none
	OK          bool    `json:"ok"`
	ErrorClass  string  `json:"error_class"`
	Error       string  `json:"error"`
	Output
	// RequestID is the X-Request-Id benchseal sent (bench.RequestID:
	// derived from the run's seed, the target, level, repeat and seq, so a
	// verifier re-derives it). ServerRequestID is the id the server gave
	// the request, when it said one (SGLang-Omni's X-Request-Id response
	// header, vLLM's stream chunk id "transcribe-<X-Request-Id>"). Both
	// join server logs and events to records. Absent in older records.
	RequestID       string `json:"request_id,omitempty"`
	ServerRequestID string `json:"server_request_id,omitempty"`
	// ResponseNote says the response was read other than as asked
	// (NoteJSONBody) or how a subtitle was read (NoteSubtitleCues);
	// absent when it was read as asked.
	ResponseNote string `json:"response_note,omitempty"`
	// PlannedNs is when an open-loop run planned to send the request, on
	// start_ns's clock: its phase's start plus its offset in the schedule
	// (internal/schedule, docs/protocol.md "Open loop"). start_ns −
	// planned_ns is the send's lateness, end_ns − planned_ns the latency
	// the user saw (the client's queue included). Absent in closed-loop
	// runs, in older records, and on a retried warm-up (not scheduled).
	PlannedNs int64 `json:"planned_ns,omitempty"`
	// Attempt is which measurement of its step the record belongs to:
	// the runner measures a closed-loop step again when its stalls break
	// the stall rule (internal/claims' Stalls), at most twice; a step's
	// discarded attempts are kept in records/<t>/attempts/ (AttemptRecordsPath),
	// its last in the step's own file. Absent (0) means 1: a first
	// attempt, and every record of a run made before attempts.
	Attempt int `json:"attempt,omitempty"`
}

// AttemptOf is r's attempt, 1 when absent.
func (r *Record) AttemptOf() int { return max(r.Attempt, 1) }

// Output is a record's task payload: the answer's output as the task
// decoded it (Text) and as its success rule scored it (Scored), before
// any normalisation. What they hold is the task's (ASR: the transcript
// as returned and without Qwen3-ASR's raw prefix); a failure's may be
// partial or empty.
type Output struct {
	Text   string `json:"text"`
	Scored string `json:"text_scored"`
}
