package task

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// ASR is the OpenAI audio transcription task: the clip is a WAV sent as
// the multipart "file" of POST /v1/audio/transcriptions, the answer is a
// transcript, scored after ScoredText; RTFx counts the clip's
// audio seconds.
var ASR Task = asr{}

type asr struct{}

func (asr) Name() string { return "asr" }

func (asr) Path() string { return engine.TranscriptionsPath }

func (asr) Decode(fields map[string]string, contentType string, body []byte) (string, string, error) {
	return decodeText(fields["response_format"], contentType, body)
}

func (asr) DecodeStream(br *bufio.Reader, onText func()) (string, string, error) {
	return readSSE(br, onText)
}

// SuccessRule is schemas.SuccessRule: HTTP 200 and a transcript that is
// not empty once scored.
func (asr) SuccessRule() string { return schemas.SuccessRule }

// Score: a transcript that is empty once Qwen3-ASR's raw prefix is
// removed is no success.
func (asr) Score(text string) (string, string, string) {
	scored := ScoredText(text)
	if strings.TrimSpace(scored) == "" {
		return scored, schemas.ErrEmptyText, "HTTP 200 with an empty transcript"
	}
	return scored, "", ""
}

// IsStream: only an SSE answer is a stream (the OpenAI transcription
// stream; internal/engine's rows).
func (asr) IsStream(contentType string) bool {
	return strings.HasPrefix(contentType, "text/event-stream")
}

// RecordSeconds is the clip's audio seconds, whatever the answer: RTFx
// counts the audio transcribed (verify's check 5 holds every record to
// its clip's).
func (asr) RecordSeconds(input float64, _ string) float64 { return input }

// Seconds is frames / rate, the clip's audio seconds (a record's
// audio_seconds).
func (asr) Seconds(frames int64, rate int) float64 { return float64(frames) / float64(rate) }

// Quality is the word (or, per run.json's scoring, character) error
// rate of the scored transcripts against the corpus' reference text
// (WER).
func (asr) Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error) {
	return WER(measured, refs, sc)
}

// Metric is "WER", or "CER" when the scoring counts characters
// (sc.Unit "char").
func (asr) Metric(sc schemas.Scoring) string {
	if sc.Unit == "char" {
		return "CER"
	}
	return "WER"
}

// LoadCorpus reads a corpus of WAV clips (LoadWAVCorpus).
func (asr) LoadCorpus(path string) ([]Clip, error) { return LoadWAVCorpus(path) }

// Positions is the clip's samples: frames times channels.
func (asr) Positions(c schemas.Clip) int64 { return c.Frames * int64(c.Channels) }

// Input parses the clip as a WAV (perturb.Parse); its positions are its
// samples, a variant flips one sample's least significant valid bit.
func (asr) Input(name string, b []byte) (Input, error) {
	w, err := perturb.Parse(name, b)
	if err != nil {
		return nil, err
	}
	return &wavInput{w: w, h: perturb.NewHasher(w)}, nil
}

type wavInput struct {
	w *perturb.WAV
	h *perturb.Hasher
}

func (in *wavInput) Positions() int64                         { return in.w.Samples() }
func (in *wavInput) Sum() [32]byte                            { return in.h.Sum() }
func (in *wavInput) Variant(i int64) (perturb.Variant, error) { return in.h.Variant(i) }
func (in *wavInput) Splice(v perturb.Variant) perturb.Splice  { return in.w.Splice(v) }

func (in *wavInput) Check(c schemas.Clip) error {
	w := in.w
	if w.Samples() != c.Frames*int64(c.Channels) || w.Frames() != c.Frames || w.Format.SampleRate != c.SampleRate {
		return fmt.Errorf("%d frames of %d channels at %d Hz, run.json says %d frames of %d channels at %d Hz",
			w.Frames(), w.Format.Channels, w.Format.SampleRate, c.Frames, c.Channels, c.SampleRate)
	}
	return nil
}

// Envelope is the multipart/form-data envelope of a target: model, the
// target's fields sorted, stream, then the file part's header; the
// closing boundary is the suffix. The item is not in the form: every item
// of a target shares the one envelope (Shared).
func (asr) Envelope(t Target) (Envelopes, error) {
	e, err := asrForm(t.Model, t.Fields, t.Stream)
	if err != nil {
		return nil, err
	}
	return Shared(e), nil
}

func asrForm(model string, fields map[string]string, stream bool) (Envelope, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	var rnd [12]byte
	rand.Read(rnd[:])
	if err := mw.SetBoundary("benchseal-" + hex.EncodeToString(rnd[:])); err != nil {
		return Envelope{}, err
	}
	write := func(k, v string) error { return mw.WriteField(k, v) }
	if err := write("model", model); err != nil {
		return Envelope{}, err
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "model" || k == "file" || k == "stream" {
			return Envelope{}, fmt.Errorf("form field %q is set by benchseal", k)
		}
		if err := write(k, fields[k]); err != nil {
			return Envelope{}, err
		}
	}
	if stream {
		if err := write("stream", "true"); err != nil {
			return Envelope{}, err
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	if _, err := mw.CreatePart(h); err != nil {
		return Envelope{}, err
	}
	prefix := slices.Clone(buf.Bytes())
	buf.Reset()
	if err := mw.Close(); err != nil {
		return Envelope{}, err
	}
	return Envelope{ContentType: mw.FormDataContentType(), Prefix: prefix, Suffix: slices.Clone(buf.Bytes())}, nil
}
