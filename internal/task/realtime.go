package task

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// Realtime is the realtime recognition task: one WebSocket session per
// request (Sessioner, realtime_session.go), the clip's 1-LSB variant
// streamed as PCM16 chunks paced at real time (run.json's
// protocol.realtime: ChunkMs of audio a chunk, Speed times real time),
// every server event kept with its receive time. The target's field
// protocol names the engine's protocol (internal/engine's realtime rows:
// "vllm", vLLM's /v1/realtime; "sglang-omni", SGLang-Omni's
// /v1/realtime?intent=transcription); run sets it from the engine
// /v1/models names where the target does not. The record keeps the
// session's timeline (RealtimeSession, as JSON in its text); its success
// is a final text that is not empty, scored as ASR's transcripts are
// (ScoredText: Qwen3-ASR's language preamble removed); its quality ASR's
// WER; RTFx counts the clip's seconds; its figures (realtime_roles.go)
// time to first partial, finalisation lag, revisions, the stream's
// real-time factor and chunk lateness.
var Realtime Task = realtime{}

func init() { Register(Realtime) }

type realtime struct{}

// RealtimeSuccessRule is realtime's success rule: a session that ended
// with the protocol's final event and a final text that is not empty
// once scored.
const RealtimeSuccessRule = "realtime_final_text"

// Realtime's defaults (run --realtime-chunk-ms, --realtime-speed) and
// the pacing bound verify holds every chunk to.
const (
	DefaultChunkMs = 100
	// DefaultLateMs: a chunk sent more than 50 ms after its planned time
	// breaks the pacing: half a default chunk, ten times the lateness
	// p99 a 64-session run keeps on a 2-core host (docs/realtime.md).
	DefaultLateMs = 50
)

func (realtime) Name() string        { return engine.TaskRealtime }
func (realtime) Path() string        { return engine.RealtimePath }
func (realtime) SuccessRule() string { return RealtimeSuccessRule }

// The realtime target's fields: protocol, and language (SGLang-Omni's
// session.update; vLLM's takes none).
const (
	FieldProtocol = "protocol"
	FieldLanguage = "language"
)

// Envelope checks the target's fields: a known protocol and no field its
// session.update would not carry (SGLang-Omni rejects unknown keys).
// The session writes its own messages (Session): the envelope is empty.
func (realtime) Envelope(t Target) (Envelopes, error) {
	for k, v := range t.Fields {
		switch k {
		case FieldProtocol:
			if _, err := realtimeProtocol(v); err != nil {
				return nil, err
			}
		case FieldLanguage:
		default:
			return nil, fmt.Errorf("field %q: a realtime session sends only %s and %s", k, FieldProtocol, FieldLanguage)
		}
	}
	return Shared(Envelope{ContentType: "application/json"}), nil
}

func realtimeProtocol(v string) (engine.StreamEvents, error) {
	switch p := engine.StreamEvents(v); p {
	case "", engine.RealtimeDeltas:
		return engine.RealtimeDeltas, nil
	case engine.RealtimeSegments:
		return p, nil
	}
	return "", fmt.Errorf("protocol %q: want %s or %s", v, engine.RealtimeDeltas, engine.RealtimeSegments)
}

// RealtimeSession is what a realtime record keeps of its session (as
// JSON in its text): the protocol, the final text, the streaming rule's
// facts (ChunkBytes a chunk, the planned start, each chunk's send time),
// StreamSHA256 (the SHA-256 of the clip with the bytes streamed in its
// data chunk's place: the record's input_sha256 when every sample
// streamed was the variant's), and every server event in the order
// received. Times are ns on the records' clock (run.json's started_at).
type RealtimeSession struct {
	Protocol     string          `json:"protocol"`
	Final        string          `json:"final"`
	ChunkBytes   int             `json:"chunk_bytes"`
	PlannedNs    int64           `json:"planned_start_ns"`
	ChunksNs     []int64         `json:"chunks_sent_ns"`
	AudioEndNs   int64           `json:"audio_end_ns,omitempty"` // when the end of audio was sent (vLLM: commit final; SGLang-Omni: commit)
	StreamSHA256 string          `json:"stream_sha256,omitempty"`
	Events       []RealtimeEvent `json:"events"`
}

// RealtimeEvent is one server event: its type, receive time, and what
// the figures and checks read of it (a delta's, segment's or final
// event's text, a segment's id and finality, SGLang-Omni's event_index,
// an error's code; its message as Text).
type RealtimeEvent struct {
	AtNs    int64  `json:"at_ns"`
	Type    string `json:"type"`
	Text    string `json:"text,omitempty"`
	Segment *int   `json:"segment,omitempty"`
	Final   bool   `json:"final,omitempty"`
	Index   *int64 `json:"index,omitempty"`
	Code    string `json:"code,omitempty"`
}

func (s *RealtimeSession) String() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ParseRealtimeSession reads a realtime record's text.
func ParseRealtimeSession(text string) (*RealtimeSession, error) {
	if !strings.HasPrefix(text, "{") {
		return nil, errors.New("not the realtime task's session")
	}
	var s RealtimeSession
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Score: a session whose final text is empty once scored is no success.
func (realtime) Score(text string) (string, string, string) {
	s, err := ParseRealtimeSession(text)
	if err != nil {
		return "", schemas.ErrDecode, "a session whose record is not a realtime session"
	}
	scored := RealtimeScored(s.Final)
	if scored == "" {
		return "", schemas.ErrEmptyText, "a session whose final text is empty"
	}
	return scored, "", ""
}

// SuccessStatus is the handshake's 101: a session's status is its
// upgrade's.
func (realtime) SuccessStatus() int { return 101 }

// errNotHTTP: a realtime request is a session, never an HTTP answer.
var errNotHTTP = errors.New("a realtime request is a WebSocket session, not an HTTP answer")

func (realtime) Decode(map[string]string, string, []byte) (string, string, error) {
	return "", "", errNotHTTP
}

func (realtime) DecodeStream(*bufio.Reader, func()) (string, string, error) {
	return "", "", errNotHTTP
}

func (realtime) IsStream(string) bool { return false }

// RecordSeconds is the clip's seconds: RTFx counts the audio recognised.
func (realtime) RecordSeconds(input float64, _ string) float64 { return input }

func (realtime) Seconds(frames int64, rate int) float64 { return float64(frames) / float64(rate) }

// LoadCorpus reads a WAV corpus (LoadWAVCorpus).
func (realtime) LoadCorpus(path string) ([]Clip, error) { return LoadWAVCorpus(path) }

func (realtime) Positions(c schemas.Clip) int64 { return c.Frames * int64(c.Channels) }

// Input is ASR's (a variant flips one sample's least significant bit),
// for clips the engines stream as they are: 16-bit PCM, mono, at
// engine.RealtimeRate. Another clip is refused, with how to convert it:
// resampling it here would stream samples no variant names.
func (realtime) Input(name string, b []byte) (Input, error) {
	w, err := perturb.Parse(name, b)
	if err != nil {
		return nil, err
	}
	f := w.Format
	if f.Kind != perturb.KindPCM || f.BitsPerSample != 16 || f.Channels != 1 || f.SampleRate != engine.RealtimeRate {
		return nil, fmt.Errorf("%s: a realtime session streams 16-bit PCM, mono, at %d Hz, and this clip is %d-bit, %d channels, at %d Hz: convert the corpus first (sox in.wav -b 16 -c 1 -r %d out.wav)",
			name, engine.RealtimeRate, f.BitsPerSample, f.Channels, f.SampleRate, engine.RealtimeRate)
	}
	return &wavInput{w: w, h: perturb.NewHasher(w)}, nil
}

// Quality is ASR's WER of the final texts.
func (realtime) Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error) {
	return WER(measured, refs, sc)
}

func (realtime) Metric(sc schemas.Scoring) string { return ASR.Metric(sc) }

// ChunkBytes is the bytes of a chunk of ms milliseconds of 16-bit mono
// audio at rate: whole samples.
func ChunkBytes(ms, rate int) int { return max(rate*ms/1000, 1) * 2 }

// qwenHeader is Qwen3-ASR's language header, "language <Lang><asr_text>".
var qwenHeader = regexp.MustCompile(`language [A-Za-z]+<asr_text>`)

// RealtimeScored is what scoring sees of a final text: vLLM's Qwen3-ASR
// realtime transcribes each 5 s segment on its own and its
// transcription.done text is the deltas joined, so every segment brings
// its own "language <Lang><asr_text>" header (vllm
// qwen3_asr_realtime.py@de5f26d5, connection.py@055e47c2; vllm #35767):
// each is a word boundary, not words; then ScoredText.
func RealtimeScored(text string) string {
	return ScoredText(strings.Join(strings.Fields(qwenHeader.ReplaceAllString(text, " ")), " "))
}
