package task

import (
	"bufio"

	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// Task is one kind of benchmark request.
type Task interface {
	// Name is the task's name ("asr").
	Name() string
	// Path is the endpoint, appended to a target's base URL.
	Path() string
	// Enveloper builds a target's envelopes, per item; Streamer says
	// which answers are streams; Seconder is a record's seconds
	// (request.go).
	Enveloper
	Streamer
	Seconder
	// Loader reads the task's corpus (corpus.go).
	Loader
	// Decode reads the output of a whole 200 answer; fields are the
	// target's form fields (which may ask for a format), note a
	// schemas.Note* when the server answered otherwise than asked.
	Decode(fields map[string]string, contentType string, body []byte) (text, note string, err error)
	// DecodeStream reads a streamed 200 answer; onText is called when the
	// first output arrives; id is a server-made id the stream carried.
	// A stream that did not end as a good one does is a *StreamError.
	DecodeStream(br *bufio.Reader, onText func()) (text, id string, err error)
	// Seconds is the input's duration that RTFx counts, from the frames
	// and rate run.json's corpus keeps for the input.
	Seconds(frames int64, rate int) float64
	// Input opens one corpus input (b: its file's bytes, name: for
	// errors) for deriving its variants; the runner calls it once per
	// input before a step, verify's check 5 once per input it re-derives.
	Input(name string, b []byte) (Input, error)
	// Positions is how many variants run.json's corpus entry c allows,
	// from the entry alone (Input.Positions of its bytes): check 5
	// re-derives records' positions with it when the inputs are not at
	// hand.
	Positions(c schemas.Clip) int64
	// Rule and Quality are the scoring side (scoring.go).
	Rule
	Quality
}

// Input is one corpus input and its variants: the bytes a request sends
// are the input with one position changed (ASR: one sample's least
// significant bit), the position drawn by perturb.Plan{Seed}.Index(the
// input's sha256, Positions(), variant number). Every method is safe for
// concurrent use once Input returned; Variant and Splice are on the
// runner's path: Variant must not allocate, Splice (called while a step is
// planned, before its timed phase) only for a Mid wider than a byte.
type Input interface {
	// Positions is how many variants the input has (Plan.Index's n).
	Positions() int64
	// Sum is the sha256 of the input as it is (run.json's corpus sha256).
	Sum() [32]byte
	// Variant is the variant changing position i: the sha256 of its bytes
	// (a record's input_sha256) and where the change is (a record's
	// sample_index and byte_offset, which check 5 compares).
	Variant(i int64) (perturb.Variant, error)
	// Splice is the variant's bytes as sent, sharing the input's bytes:
	// Head, Mid (the changed bytes, of any width), Tail (request.go).
	Splice(v perturb.Variant) perturb.Splice
	// Check says whether the input is the one run.json's corpus entry c
	// describes, beyond its sha256 (ASR: its frames, channels and rate).
	Check(c schemas.Clip) error
}
