package bench

import (
	"bytes"
	"io"

	"github.com/benchseal/benchseal/schemas"
)

// Answer is one measured request's successful answer as it came off the
// wire: its record, its Content-Type and its body's bytes (a stream's
// whole body). Body is valid only during the call.
type Answer struct {
	Record      *schemas.Record
	ContentType string
	Body        []byte
}

// WithAnswers calls keep with every measured request's successful answer
// (warm-ups and cache-probe requests are not passed), on the worker's
// goroutine right after the request ended, so keep must be safe for
// concurrent use and quick: what it costs is between this worker's
// requests (a closed-loop worker sends its next one after it). Without
// it the runner keeps no answer (a stream's body is not even buffered).
// A round trip through a second server (internal/roundtrip) keeps them to
// send after the sweep.
func WithAnswers(keep func(Answer)) Option { return func(c *config) { c.answers = keep } }

// answerReader is the stream reader's source: the capped body, teed into
// the worker's tee buffer when answers are kept.
func (r *runner) answerReader(wk *worker, body io.Reader) io.Reader {
	wk.tee.Reset()
	if r.cfg.answers == nil {
		return body
	}
	return io.TeeReader(body, &wk.tee)
}

// keepAnswer passes a measured successful answer to WithAnswers' keep.
func (r *runner) keepAnswer(wk *worker, rec *schemas.Record) {
	if r.cfg.answers == nil || !rec.OK || rec.Phase != schemas.PhaseMeasure {
		return
	}
	body := wk.buf.Bytes()
	if wk.streamed {
		body = wk.tee.Bytes()
	}
	r.cfg.answers(Answer{Record: rec, ContentType: wk.contentType, Body: body})
}

// answerState is what a worker remembers of its last answer for
// keepAnswer.
type answerState struct {
	contentType string
	streamed    bool
	tee         bytes.Buffer
}
