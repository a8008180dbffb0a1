package task

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// The tts task reads three stream shapes (DecodeStreamHeader, by the
// answer's content type):
//
//   - raw s16le (audio/pcm): vLLM-Omni's stream_format "audio" with
//     response_format pcm, which names no rate (DefaultPCMRate, the engine
//     row's), and SGLang-Omni's stream:true, whose X-Sample-Rate,
//     X-Channels and X-Bit-Depth headers say its format
//     (sgl-project/sglang-omni sglang_omni/serve/openai_api.py
//     _speech_audio_response@3f4286eb);
//   - a streamed WAV (audio/wav): vLLM-Omni's stream_format "audio" with
//     wav, a 44-byte header whose sizes are 0xFFFFFFFF, then s16le;
//   - vLLM-Omni's SSE (text/event-stream, stream:true without
//     stream_format "audio"): event: speech.audio.delta with
//     {"type","audio":<base64>,"response_format"}, the first delta of a
//     WAV stream carrying only the 44-byte header; then
//     speech.audio.done with {"type","usage"}; on a failure
//     speech.audio.error {"type","error":{message,type,param,code}} in
//     place of done; no [DONE]
//     (vllm-project/vllm-omni vllm_omni/entrypoints/openai/serving_speech.py
//     _generate_audio_sse_events@d6240742).
//
// In each, the first output (a record's first_byte_ns, time to first
// audio) is the first non-empty PCM bytes: never the headers, never a WAV
// header alone. A stream that breaks off is stream_truncated, as is an
// SSE stream that ends without speech.audio.done; an SSE error event is
// stream_error.

// Stream shapes, the Audio facts' Stream.
const (
	StreamRaw = "raw" // raw s16le or a streamed WAV
	StreamSSE = "sse" // vLLM-Omni's speech.audio.* events
	// StreamWhole: a whole WAV or PCM body (no stream asked for), read as
	// it came: its first output is still its first PCM bytes.
	StreamWhole = "whole"
)

// IsStream: an answer to a stream request that is raw PCM (audio/pcm), a
// streamed WAV (audio/wav) or vLLM-Omni's SSE (text/event-stream) is read
// as a stream, its first output the first non-empty PCM bytes.
func (tts) IsStream(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "audio/pcm", "audio/l16", "audio/wav", "audio/x-wav", "audio/wave", "text/event-stream":
		return true
	}
	return false
}

// DecodeStream reads a raw s16le stream with no headers to read: its rate
// is DefaultPCMRate, and the facts say so (DecodeStreamHeader reads the
// answer's headers; the runner calls that one).
func (t tts) DecodeStream(br *bufio.Reader, onText func()) (string, string, error) {
	return t.DecodeStreamHeader(http.Header{"Content-Type": {"audio/pcm"}}, br, onText)
}

// DecodeStreamHeader reads a streamed answer by its content type (the
// shapes above); onText is called at the first non-empty PCM bytes.
func (tts) DecodeStreamHeader(h http.Header, br *bufio.Reader, onText func()) (string, string, error) {
	mt, params, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if mt == "text/event-stream" {
		return decodeSSE(br, onText)
	}
	return decodeRaw(h, mt, params, br, onText, StreamRaw)
}

// ReadsWhole: a whole WAV or raw PCM body (to a request that asked for
// no stream) is read as it comes, so that its record's first output is
// its first PCM bytes, as a stream's is. Other formats (flac, mp3, ...)
// are read whole: their first audio is not observed.
func (tts) ReadsWhole(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "audio/pcm", "audio/l16", "audio/wav", "audio/x-wav", "audio/wave":
		return true
	}
	return false
}

// DecodeWhole reads a whole WAV or PCM body as DecodeStreamHeader reads a
// raw stream; its facts say it was a whole body read as it came
// (StreamWhole).
func (tts) DecodeWhole(h http.Header, br *bufio.Reader, onText func()) (string, string, error) {
	mt, params, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return decodeRaw(h, mt, params, br, onText, StreamWhole)
}

// decodeRaw reads raw s16le or a WAV as it comes, labelled stream.
func decodeRaw(h http.Header, mt string, params map[string]string, br *bufio.Reader, onText func(), stream string) (string, string, error) {
	first := false
	var audio []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := br.Read(buf)
		if n > 0 {
			audio = append(audio, buf[:n]...)
			if !first && hasAudio(audio) {
				onText()
				first = true
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", "", &StreamError{schemas.ErrStreamTruncated, "the audio stream broke off: " + err.Error()}
		}
	}
	var a Audio
	if isRIFF(audio) || strings.Contains(mt, "wav") {
		a = decodeWAV(audio)
	} else {
		a = rawPCM(h, params, audio)
	}
	a.Stream = stream
	return a.String(), "", nil
}

// rawPCM measures a raw s16le body: its rate from SGLang-Omni's
// X-Sample-Rate (and X-Channels; an X-Bit-Depth other than 16 is
// undecodable), else a content-type rate parameter, else DefaultPCMRate.
func rawPCM(h http.Header, params map[string]string, pcm []byte) Audio {
	rate, ch, from := DefaultPCMRate, 1, "engine default (no rate sent; Qwen3-TTS is 24 kHz)"
	if r, err := strconv.Atoi(params["rate"]); err == nil && r > 0 {
		rate, from = r, "content-type rate"
	}
	if v := h.Get("X-Sample-Rate"); v != "" {
		r, err := strconv.Atoi(v)
		if err != nil || r < 1 {
			return Audio{Undecodable: fmt.Sprintf("pcm: X-Sample-Rate %q is not a rate", v)}
		}
		rate, from = r, "X-Sample-Rate header"
	}
	if v := h.Get("X-Channels"); v != "" {
		c, err := strconv.Atoi(v)
		if err != nil || c < 1 {
			return Audio{Undecodable: fmt.Sprintf("pcm: X-Channels %q is not a channel count", v)}
		}
		ch = c
	}
	if v := h.Get("X-Bit-Depth"); v != "" && v != "16" {
		return Audio{Undecodable: fmt.Sprintf("pcm: X-Bit-Depth %q: only 16-bit PCM is decoded", v)}
	}
	return pcmFacts("pcm", pcm, rate, ch, from)
}

func isRIFF(b []byte) bool { return len(b) >= 4 && string(b[:4]) == "RIFF" }

// hasAudio reports whether b, a stream's bytes so far, holds PCM: any
// byte of a raw stream, a byte past a WAV's data chunk header.
func hasAudio(b []byte) bool {
	if len(b) < 4 {
		return len(b) > 0 && !bytes.HasPrefix([]byte("RIFF"), b)
	}
	if !isRIFF(b) {
		return true
	}
	for off := 12; off+8 <= len(b); {
		size := int64(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		if string(b[off:off+4]) == "data" {
			return len(b) > off+8
		}
		next := int64(off) + 8 + size + size&1
		if next > int64(len(b)) {
			return false
		}
		off = int(next)
	}
	return false
}

// sseEvent is one speech.audio.* event's data.
type sseEvent struct {
	Type           string `json:"type"`
	Audio          string `json:"audio"`
	ResponseFormat string `json:"response_format"`
	Error          *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// decodeSSE reads vLLM-Omni's speech SSE stream: the deltas' audio
// concatenated (a WAV, or raw PCM at DefaultPCMRate: the stream names no
// rate), ending at speech.audio.done.
func decodeSSE(br *bufio.Reader, onText func()) (string, string, error) {
	a, err := sseAudio(br, onText)
	if err != nil {
		return "", "", err
	}
	return a.String(), "", nil
}

// sseAudio is decodeSSE's audio.
func sseAudio(br *bufio.Reader, onText func()) (Audio, error) {
	var audio []byte
	var format, name string
	var data []byte
	first, done := false, false
	dispatch := func() error {
		defer func() { name, data = "", data[:0] }()
		if len(data) == 0 {
			return nil
		}
		var ev sseEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return &StreamError{schemas.ErrStreamError, fmt.Sprintf("an SSE event that is not speech.audio JSON: %v", err)}
		}
		if ev.Type == "" {
			ev.Type = name
		}
		switch ev.Type {
		case "speech.audio.delta":
			b, err := base64.StdEncoding.DecodeString(ev.Audio)
			if err != nil {
				return &StreamError{schemas.ErrStreamError, "speech.audio.delta whose audio is not base64: " + err.Error()}
			}
			if ev.ResponseFormat != "" {
				format = ev.ResponseFormat
			}
			audio = append(audio, b...)
			if !first && hasAudio(audio) {
				onText()
				first = true
			}
		case "speech.audio.done":
			done = true
		case "speech.audio.error":
			msg := "speech.audio.error"
			if ev.Error != nil {
				msg += ": " + ev.Error.Message
			}
			return &StreamError{schemas.ErrStreamError, msg}
		}
		return nil
	}
	for !done {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if e := dispatch(); e != nil {
					return Audio{}, e
				}
				continue
			case bytes.HasPrefix(line, []byte("event:")):
				name = string(bytes.TrimSpace(line[len("event:"):]))
			case bytes.HasPrefix(line, []byte("data:")):
				d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, d...)
			}
		}
		if err == io.EOF {
			if e := dispatch(); e != nil {
				return Audio{}, e
			}
			break
		}
		if err != nil {
			return Audio{}, &StreamError{schemas.ErrStreamTruncated, "the speech SSE stream broke off: " + err.Error()}
		}
	}
	if !done {
		return Audio{}, &StreamError{schemas.ErrStreamTruncated, "the speech SSE stream ended without speech.audio.done"}
	}
	io.Copy(io.Discard, br) // vLLM-Omni sends nothing after done: the connection is kept
	var a Audio
	if format == "wav" || isRIFF(audio) {
		a = decodeWAV(audio)
	} else {
		a = pcmFacts("pcm", audio, DefaultPCMRate, 1, "engine default (SSE names no rate; Qwen3-TTS is 24 kHz)")
	}
	a.Stream = StreamSSE
	return a, nil
}
