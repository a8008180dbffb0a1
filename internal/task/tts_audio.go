package task

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"strconv"
	"strings"
)

// Audio is what the tts task keeps of one produced answer: a record's
// text is its JSON (AudioFacts), so that verify re-applies the success
// rule and re-derives the record's seconds from the record alone
// (records do not keep raw audio).
type Audio struct {
	// Format is "wav", "pcm" (s16le) or "flac" as decoded; "" when the body was
	// not decodable (Undecodable says why).
	Format string `json:"format,omitempty"`
	// SampleRate and RateFrom: the rate, and where it came from ("wav
	// header", "content-type rate", or the engine row's default for a raw
	// PCM body that names none).
	SampleRate int    `json:"sample_rate,omitempty"`
	RateFrom   string `json:"rate_from,omitempty"`
	Channels   int    `json:"channels,omitempty"`
	// Seconds is the produced audio's duration: frames / rate.
	Seconds float64 `json:"seconds"`
	// RMSDBFS is the whole clip's RMS in dB full scale (-200 for
	// digital silence); LongestSilence the longest run, in seconds, of
	// 10 ms windows whose RMS is below SilenceDBFS.
	RMSDBFS        float64 `json:"rms_dbfs"`
	LongestSilence float64 `json:"longest_silence_s"`
	// SHA256 is the SHA-256 of the PCM bytes produced (a WAV's data
	// chunk, a raw body's bytes), so that two formats of one audio hash
	// alike.
	SHA256      string `json:"sha256,omitempty"`
	Undecodable string `json:"undecodable,omitempty"`
	// Stream is how a streamed answer came: StreamRaw or StreamSSE; ""
	// for a whole body.
	Stream string `json:"stream,omitempty"`

	pcm []byte // the PCM measured (not kept in records): ProducedWAV's
}

// The success rule's thresholds, named in its name (TTSSuccessRule).
const (
	// MinSeconds: a shorter answer is too_short.
	MinSeconds = 0.3
	// SilenceDBFS: an answer whose RMS is below it is silent; a 10 ms
	// window below it counts toward the longest silence.
	SilenceDBFS = -50.0
)

// The tts task's failure classes, beside the runner's HTTP ones.
const (
	ErrSilent      = "silent"      // 200 with audio of no speech energy (RMS < SilenceDBFS)
	ErrUndecodable = "undecodable" // 200 whose body is no audio benchseal decodes
	ErrTooShort    = "too_short"   // 200 with less than MinSeconds of audio
)

// TTSSuccessRule is the tts task's rule's name, run.json's
// protocol.success_rule: HTTP 200, decodable audio of at least
// MinSeconds, RMS at least SilenceDBFS.
const TTSSuccessRule = "http_200_audio_ge_0.3s_rms_ge_-50dBFS"

// DefaultPCMRate is the rate of a raw PCM answer that names none: both
// engines' Qwen3-TTS produce 24 kHz, and vLLM-Omni sends no rate header
// (vllm-project/vllm-omni docs/serving/speech_api.md@d6240742;
// sgl-project/sglang-omni sglang_omni/client/audio.py@3f4286eb writes its WAV at the pipeline rate, 24000 for Qwen3-TTS).
const DefaultPCMRate = 24000

// String is the facts as a record's text: JSON, its numbers rounded so
// that the text is the same whoever prints it again.
func (a Audio) String() string {
	a.Seconds = round6(a.Seconds)
	a.RMSDBFS = round6(a.RMSDBFS)
	a.LongestSilence = round6(a.LongestSilence)
	b, _ := json.Marshal(a)
	return string(b)
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// ParseAudio reads a record's text back; an error for text that is not
// the facts' JSON.
func ParseAudio(text string) (Audio, error) {
	var a Audio
	if !strings.HasPrefix(text, "{") {
		return a, errors.New("not the tts task's audio facts")
	}
	err := json.Unmarshal([]byte(text), &a)
	return a, err
}

// decodeAudio decodes a whole answer's body by its content type: WAV
// (audio/wav, or a body that starts RIFF), raw s16le (audio/pcm, rate from
// the content type's rate parameter or DefaultPCMRate), FLAC
// (decodeFLAC). Anything else (mp3, opus, aac, JSON) is undecodable:
// benchseal has no decoder for it, and never guesses a duration from a
// size.
func decodeAudio(contentType string, body []byte) Audio {
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case len(body) >= 12 && string(body[:4]) == "RIFF" && string(body[8:12]) == "WAVE":
		return decodeWAV(body)
	case mt == "audio/pcm" || mt == "audio/l16":
		rate, from := DefaultPCMRate, "engine default (no rate sent; Qwen3-TTS is 24 kHz)"
		if r, err := strconv.Atoi(params["rate"]); err == nil && r > 0 {
			rate, from = r, "content-type rate"
		}
		return pcmFacts("pcm", body, rate, 1, from)
	case mt == "audio/wav" || mt == "audio/x-wav" || mt == "audio/wave":
		return decodeWAV(body)
	case bytes.HasPrefix(body, []byte("fLaC")) || mt == "audio/flac" || mt == "audio/x-flac":
		return decodeFLAC(body)
	}
	return Audio{Undecodable: fmt.Sprintf("content type %q (%d bytes): not a format benchseal decodes (wav, pcm, flac)", contentType, len(body))}
}

// decodeWAV reads a 16-bit PCM WAV: its fmt chunk and data chunk. A data
// size of 0xFFFFFFFF (vLLM-Omni's streamed WAV header,
// vllm_omni/entrypoints/openai/serving_speech.py _create_wav_header@d6240742)
// or past the body means the rest of the body.
func decodeWAV(b []byte) Audio {
	pcm, rate, ch, err := wavPCM(b)
	if err != nil {
		return Audio{Undecodable: err.Error()}
	}
	return pcmFacts("wav", pcm, rate, ch, "wav header")
}

// wavPCM is a 16-bit PCM WAV's data chunk, rate and channels.
func wavPCM(b []byte) (pcm []byte, rate, ch int, err error) {
	bad := func(format string, a ...any) ([]byte, int, int, error) {
		return nil, 0, 0, fmt.Errorf("wav: "+format, a...)
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return bad("no RIFF/WAVE header (%d bytes)", len(b))
	}
	var bits int
	var haveFmt bool
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int64(binary.LittleEndian.Uint32(b[off+4:off+8]))
		p := off + 8
		switch id {
		case "fmt ":
			if size < 16 || int64(p)+size > int64(len(b)) {
				return bad("fmt chunk of %d bytes", size)
			}
			tag := binary.LittleEndian.Uint16(b[p:])
			ch, rate, bits = int(binary.LittleEndian.Uint16(b[p+2:])), int(binary.LittleEndian.Uint32(b[p+4:])), int(binary.LittleEndian.Uint16(b[p+14:]))
			if (tag != 1 && tag != 0xFFFE) || bits != 16 || ch < 1 || rate < 1 {
				return bad("format tag %d, %d bits, %d channels, %d Hz: only 16-bit PCM is decoded", tag, bits, ch, rate)
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return bad("data chunk before fmt")
			}
			end := int64(p) + size
			if size == 0xFFFFFFFF || end > int64(len(b)) {
				end = int64(len(b))
			}
			return b[p:end], rate, ch, nil
		}
		off = p + int(size) + int(size&1)
		if size > int64(len(b)) {
			break
		}
	}
	return bad("no data chunk")
}

// pcmFacts measures s16le PCM of ch channels at rate.
func pcmFacts(format string, pcm []byte, rate, ch int, from string) Audio {
	a := Audio{Format: format, SampleRate: rate, RateFrom: from, Channels: ch, pcm: pcm}
	sum := sha256.Sum256(pcm)
	a.SHA256 = hex.EncodeToString(sum[:])
	frames := len(pcm) / (2 * ch)
	a.Seconds = float64(frames) / float64(rate)
	win := rate / 100 // 10 ms
	if win < 1 {
		win = 1
	}
	var total, wsum float64
	var wn, run, longest int
	thr := math.Pow(10, SilenceDBFS/20)
	flush := func() {
		if wn == 0 {
			return
		}
		if math.Sqrt(wsum/float64(wn*ch)) < thr {
			run += wn
			longest = max(longest, run)
		} else {
			run = 0
		}
		wsum, wn = 0, 0
	}
	for f := 0; f < frames; f++ {
		for c := 0; c < ch; c++ {
			s := float64(int16(binary.LittleEndian.Uint16(pcm[(f*ch+c)*2:]))) / 32768
			total += s * s
			wsum += s * s
		}
		if wn++; wn == win {
			flush()
		}
	}
	flush()
	a.RMSDBFS = -200
	if frames > 0 && total > 0 {
		a.RMSDBFS = max(-200, 20*math.Log10(math.Sqrt(total/float64(frames*ch))))
	}
	a.LongestSilence = float64(longest) / float64(rate)
	return a
}

// scoreAudio is the tts rule on a record's text.
func scoreAudio(text string) (string, string, string) {
	a, err := ParseAudio(text)
	switch {
	case err != nil:
		return text, ErrUndecodable, "the output is not the tts task's audio facts: " + err.Error()
	case a.Undecodable != "" || a.Format == "":
		return text, ErrUndecodable, "HTTP 200 with undecodable audio: " + a.Undecodable
	case a.Seconds < MinSeconds:
		return text, ErrTooShort, fmt.Sprintf("HTTP 200 with %.3f s of audio, under %.1f s", a.Seconds, MinSeconds)
	case a.RMSDBFS < SilenceDBFS:
		return text, ErrSilent, fmt.Sprintf("HTTP 200 with silent audio: RMS %.1f dBFS, under %.0f dBFS", a.RMSDBFS, SilenceDBFS)
	}
	return text, "", ""
}
