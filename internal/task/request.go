package task

import (
	"bufio"
	"net/http"

	"github.com/benchseal/benchseal/perturb"
)

// The request side of a task: what a request's body is around its input.
// Each role is its own small interface, so a task is the sum of what it
// does (the Task interface in task.go composes them).

// Target is what a request's envelope says of the server it goes to:
// the model, the target's own form fields or members (language,
// response_format, a voice...), and whether it asks for a stream.
type Target struct {
	Model  string
	Fields map[string]string
	Stream bool
}

// Item is what an envelope may say of the corpus item it carries besides
// the input's bytes: ASR's envelope says nothing of it, a text-to-speech
// envelope carries Speak (the text to speak) as a member of its body.
type Item struct {
	ID       string
	Text     string // the reference (ASR: the transcript), "" if none
	Language string
	Speak    string // the text a speech request speaks (SeedTTS meta.lst's fourth field), "" if none
	Voice    string // the voice a speech request asks for, "" if none
	// NoInput: the item has no input to send (a tts item without a
	// reference clip, spoken in a named voice): its envelope is the whole
	// body, and nothing of it is perturbed.
	NoInput bool
	Source  string // where the item was read from (a corpus line), for errors
}

// Enveloper builds a target's request envelopes.
type Enveloper interface {
	// Envelope prepares target's envelopes; the runner calls it once per
	// target before the sweep, and rejects the target on its error.
	Envelope(target Target) (Envelopes, error)
}

// Envelopes is one target's request envelopes, item by item.
type Envelopes interface {
	// For is the envelope item is sent in. The runner calls it once per
	// (target, item) before the sweep and keeps what it returns: every
	// request then sends Prefix, the variant's bytes (Input.Splice) and
	// Suffix, copying no input. Items whose envelope says nothing of
	// them share one envelope's slices (ASR: all items of a target).
	For(item Item) (Envelope, error)
}

// Envelope is what a request carries around its input; the runner only
// reads its slices, shared by every request of a (target, item).
type Envelope struct {
	ContentType string
	Prefix      []byte
	Suffix      []byte
}

// Shared is Envelopes whose every item has the same envelope.
type Shared Envelope

// For returns the shared envelope, whatever the item.
func (s Shared) For(Item) (Envelope, error) { return Envelope(s), nil }

// Unchanged is an Input whose bytes as sent are not its file's (a base64
// view): what a request sends of the input as it is (--no-perturb, the
// cache probe's repeats). An Input without it sends its file's bytes.
type Unchanged interface {
	Unchanged() perturb.Splice
}

// Whole is what a request sends of in unchanged: in's Unchanged, or
// file (the input's bytes) as they are.
func Whole(in Input, file []byte) perturb.Splice {
	if u, ok := in.(Unchanged); ok {
		return u.Unchanged()
	}
	return perturb.Splice{Head: file}
}

// WAVBase64 opens a WAV input sent as its base64 text (a reference clip
// in a `data:audio/wav;base64,` URL of a JSON body): its positions and
// variants are the WAV's (a variant's SHA-256, a record's input_sha256,
// is the perturbed WAV's, as ASR's is), its Splice the base64 text of
// the variant, re-encoding only the changed 4-character group
// (perturb.Base64), so check 5 re-derives the text sent from the WAV.
func WAVBase64(name string, b []byte) (Input, error) {
	w, err := perturb.Parse(name, b)
	if err != nil {
		return nil, err
	}
	return &base64Input{wavInput{w: w, h: perturb.NewHasher(w)}, perturb.NewBase64(b)}, nil
}

type base64Input struct {
	wavInput
	b *perturb.Base64
}

func (in *base64Input) Splice(v perturb.Variant) perturb.Splice {
	return in.b.Splice(in.w.Splice(v))
}

func (in *base64Input) Unchanged() perturb.Splice { return perturb.Splice{Head: in.b.Text} }

// Streamer says which answers are streams.
type Streamer interface {
	// IsStream says whether a 200 answer of contentType, to a request
	// that asked for a stream, is one the task reads with DecodeStream,
	// which marks the first output (ASR: text/event-stream; a speech
	// task's raw audio/pcm). Any other answer is read whole, its first
	// output the response's headers.
	IsStream(contentType string) bool
}

// HeaderStreamer is a task whose streams say something in their headers
// (SGLang-Omni's X-Sample-Rate on a raw PCM stream, the content type
// that tells vLLM-Omni's SSE from raw audio): the runner calls
// DecodeStreamHeader with the answer's headers in place of
// Task.DecodeStream.
type HeaderStreamer interface {
	DecodeStreamHeader(h http.Header, br *bufio.Reader, onText func()) (text, id string, err error)
}

// WholeReader is a task that reads some whole 200 answers (to a request
// that asked for no stream) as they come, so that their first output is
// their content's, not their headers' (tts: the first PCM bytes of a WAV
// or PCM body). DecodeWhole reads such an answer as DecodeStreamHeader
// reads a stream, calling onText at that first output.
type WholeReader interface {
	ReadsWhole(contentType string) bool
	DecodeWhole(h http.Header, br *bufio.Reader, onText func()) (text, id string, err error)
}

// Seconder is the seconds a request's RTF divides by.
type Seconder interface {
	// RecordSeconds is a record's audio_seconds from input, the seconds
	// of its input (Task.Seconds of its corpus entry), and output, its
	// output as decoded ("" when the request failed before one). ASR
	// counts the input's whatever the answer; a task that produces audio
	// may count its output's.
	RecordSeconds(input float64, output string) float64
}
