package schemas

import "path"

// A round trip (run --asr-target) sends every measured successful
// answer of a tts run to an ASR server after the sweep, outside every
// timed window, and keeps what it heard: roundtrip/asr.json says which
// server and how, roundtrip/<target>.jsonl holds one Heard line per
// answer sent. claims.json's quality figure ("wer") of a tts run is the
// WER of those transcripts against the text each request spoke.
const (
	RoundTripDir     = "roundtrip"
	RoundTripASRFile = "roundtrip/asr.json" // RoundTripASR
	RoundTripSchema  = "benchseal.round_trip/v1"
)

// RoundTripPath is the Heard lines of one target's answers.
func RoundTripPath(target string) string { return path.Join(RoundTripDir, target+".jsonl") }

// IsRoundTrip says whether name is a target's roundtrip/<target>.jsonl.
func IsRoundTrip(name string) bool {
	dir, file := path.Split(name)
	return dir == RoundTripDir+"/" && path.Ext(file) == ".jsonl"
}

// RoundTrip is run.json's protocol.round_trip: the ASR server the
// produced audio was to be transcribed by.
type RoundTrip struct {
	ASR   string `json:"asr"`   // its name (run --asr-target NAME=URL)
	Model string `json:"model"` // the model asked for ("" when the server lists none)
}

// RoundTripASR is roundtrip/asr.json: the ASR server, what it said of
// itself, and how the round trip went.
type RoundTripASR struct {
	Schema string `json:"schema"` // RoundTripSchema
	Name   string `json:"name"`
	URL    string `json:"url"`
	Model  string `json:"model"`
	// Models is what its GET /v1/models listed, before the sweep.
	Models []string `json:"models"`
	// StartNs and EndNs bracket the round trip, offsets from run.json's
	// started_at like the records'.
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns"`
	// Sent counts the answers sent, Heard those transcribed (HTTP 200
	// with a transcript), per target.
	Sent  map[string]int `json:"sent"`
	Heard map[string]int `json:"heard"`
	// Skipped says why answers were not sent ("" when all were): the
	// sweep was interrupted, an answer could not be made a WAV.
	Skipped []string `json:"skipped,omitempty"`
}

// Heard is one line of roundtrip/<target>.jsonl: what the ASR server
// heard of one measured answer, named by the record's request_id.
type Heard struct {
	RequestID   string `json:"request_id"`
	Clip        string `json:"clip"`
	Concurrency int    `json:"concurrency"`
	Repeat      int    `json:"repeat"`
	Seq         int    `json:"seq"`
	// AudioSHA256 is the SHA-256 of the PCM sent, the one the record's
	// output names.
	AudioSHA256 string `json:"audio_sha256"`
	Status      int    `json:"status"`          // the ASR server's HTTP status; 0: no answer
	Text        string `json:"text"`            // its transcript (json's text), "" on an error
	Error       string `json:"error,omitempty"` // why there is none
	StartNs     int64  `json:"start_ns"`
	EndNs       int64  `json:"end_ns"`
}
