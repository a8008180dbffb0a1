package task

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/benchseal/benchseal/schemas"
)

// The tts task's quality figure is an ASR round trip's (run
// --asr-target, internal/roundtrip): each measured answer's audio,
// transcribed by an ASR server after the sweep, scored against the text
// the request spoke with run.json's scoring, as ASR scores its
// transcripts (WER, ScorePair's rule). Without a round trip it is
// unknown (nil), never 0.

// Metric is "round-trip WER", or "round-trip CER" when sc counts
// characters.
func (tts) Metric(sc schemas.Scoring) string { return "round-trip " + ASR.Metric(sc) }

// Quality without a round trip's transcripts is unknown.
func (tts) Quality([]schemas.Record, map[string]string, schemas.Scoring) (*float64, error) {
	return nil, nil
}

// RoundTrip is the tts task's quality over what heard holds (by request
// id), with Spoken's references.
func (tts) RoundTrip(heard map[string]schemas.Heard) Quality { return heardQuality{heard} }

// Hearer is ASR: the round trip's server transcribes each produced answer.
func (tts) Hearer() Task { return ASR }

type heardQuality struct{ heard map[string]schemas.Heard }

func (heardQuality) Name() string                     { return TTS.Name() }
func (heardQuality) Metric(sc schemas.Scoring) string { return TTS.Metric(sc) }

// Quality scores the measured records as heard: a successful answer by
// its transcript, a failed request as ASR scores one (excluded, or a
// deletion under --failures-as-deletions). A successful answer that was
// not transcribed (the ASR server failed, the round trip was cut short)
// is not scored: it was not observed. nil when no answer was heard.
func (q heardQuality) Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error) {
	var recs []schemas.Record
	heard := 0
	for _, r := range measured {
		if r.OK {
			h, ok := q.heard[r.RequestID]
			if !ok || h.Status != 200 || h.Error != "" {
				continue
			}
			scored, _, _ := ASR.Score(h.Text)
			r.Text, r.Scored = h.Text, scored
			heard++
		}
		recs = append(recs, r)
	}
	if heard == 0 {
		return nil, nil
	}
	return WER(recs, refs, sc)
}

// Spoken is the text each corpus entry of run spoke (run.json's speak),
// by clip id: a round trip's references.
func Spoken(run schemas.Run) map[string]string {
	refs := map[string]string{}
	for _, c := range run.Corpus {
		if c.Speak != "" {
			refs[c.ID] = c.Speak
		}
	}
	return refs
}

// ProducedWAV is the audio of a successful answer as a 16-bit PCM WAV,
// for an ASR server: output is the record's text (the answer's Audio
// facts), contentType and body the answer as it came. The PCM must be
// the one the facts name (its SHA-256): the round trip transcribes the
// audio the record measured, nothing else.
func ProducedWAV(output, contentType string, body []byte) ([]byte, error) {
	a, err := ParseAudio(output)
	if err != nil {
		return nil, err
	}
	pcm, err := producedPCM(a, contentType, body)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(pcm); hex.EncodeToString(sum[:]) != a.SHA256 {
		return nil, fmt.Errorf("the answer's PCM (%d bytes, %s %q) is not the audio its record names", len(pcm), a.Format, contentType)
	}
	return WAVFile(pcm, a.SampleRate, a.Channels), nil
}

// producedPCM decodes body again the way its facts a say it was.
func producedPCM(a Audio, contentType string, body []byte) ([]byte, error) {
	var d Audio
	switch {
	case a.Stream == StreamSSE:
		var err error
		if d, err = sseAudio(bufio.NewReader(bytes.NewReader(body)), func() {}); err != nil {
			return nil, err
		}
	case a.Format == "pcm":
		return body, nil
	case a.Format == "wav" || a.Format == "flac":
		d = decodeAudio(contentType, body)
	default:
		return nil, fmt.Errorf("no audio to send: the answer's format is %q", a.Format)
	}
	if d.Undecodable != "" {
		return nil, errors.New(d.Undecodable)
	}
	return d.pcm, nil
}

// WAVFile is s16le PCM in a canonical 44-byte-header WAV.
func WAVFile(pcm []byte, rate, channels int) []byte {
	b := make([]byte, 44, 44+len(pcm))
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+len(pcm)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], uint16(channels))
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate*channels*2))
	binary.LittleEndian.PutUint16(b[32:], uint16(channels*2))
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(len(pcm)))
	return append(b, pcm...)
}
