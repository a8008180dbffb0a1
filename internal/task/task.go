package task

import "bufio"

// Task is one kind of benchmark request.
type Task interface {
	// Name is the task's name ("asr").
	Name() string
	// Path is the endpoint, appended to a target's base URL.
	Path() string
	// Envelope builds a target's request envelope once: every request
	// sends Prefix, the input's bytes and Suffix, so the runner builds
	// bodies from shared slices and copies no input.
	Envelope(model string, fields map[string]string, stream bool) (Envelope, error)
	// Decode reads the output of a whole 200 answer; fields are the
	// target's form fields (which may ask for a format), note a
	// schemas.Note* when the server answered otherwise than asked.
	Decode(fields map[string]string, contentType string, body []byte) (text, note string, err error)
	// DecodeStream reads a streamed 200 answer; onText is called when the
	// first output arrives; id is a server-made id the stream carried.
	// A stream that did not end as a good one does is a *StreamError.
	DecodeStream(br *bufio.Reader, onText func()) (text, id string, err error)
	// Score is the success rule: the output as scored, and the
	// schemas.Err* class and message when the answer is no success.
	Score(text string) (scored, class, msg string)
	// Seconds is the input's duration that RTFx counts, from the frames
	// and rate run.json's corpus keeps for the input.
	Seconds(frames int64, rate int) float64
}

// Envelope is what a request carries around its input.
type Envelope struct {
	ContentType string
	Prefix      []byte
	Suffix      []byte
}
