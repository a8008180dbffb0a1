package sim

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// SpeechRate is the simulated voice's sample rate: Qwen3-TTS's 24 kHz
// (vllm-project/vllm-omni docs/serving/speech_api.md@d6240742).
const SpeechRate = 24000

// SpeechSecondsPerChar is how long the simulated voice speaks per input
// character (about 14 characters a second, an English speaking rate).
const SpeechSecondsPerChar = 0.07

// speechRequest is the part of vLLM-Omni's OpenAICreateSpeechRequest the
// simulator reads (vllm_omni/entrypoints/openai/protocol/audio.py@d6240742);
// other members are accepted and ignored, as pydantic drops unknown ones.
type speechRequest struct {
	Model          string `json:"model"`
	Input          string `json:"input"`
	Voice          string `json:"voice"`
	ResponseFormat string `json:"response_format"`
	Stream         bool   `json:"stream"`
	StreamFormat   string `json:"stream_format"`
	RefAudio       string `json:"ref_audio"`
	RefText        string `json:"ref_text"`
}

// Speech synthesises the simulator's voice for text: a tone whose pitch
// follows the text's SHA-256 and whose duration is SpeechSecondsPerChar
// per character, at SpeechRate, 16-bit mono, half scale, with 10 ms
// fades: deterministic, so that the same text always sounds the same. It
// is not speech; benchseal's tts rule sees a voiced signal.
func Speech(text string) []int16 {
	n := int(float64(utf8.RuneCountInString(text)) * SpeechSecondsPerChar * SpeechRate)
	h := sha256.Sum256([]byte(text))
	f := 150 + float64(binary.LittleEndian.Uint16(h[:])%200) // 150-350 Hz, a voice's range
	out := make([]int16, n)
	fade := SpeechRate / 100
	for i := range out {
		g := 0.5
		if i < fade {
			g *= float64(i) / float64(fade)
		} else if n-i < fade {
			g *= float64(n-i) / float64(fade)
		}
		out[i] = int16(g * 32767 * math.Sin(2*math.Pi*f*float64(i)/SpeechRate))
	}
	return out
}

// speechWAV is a 44-byte header 16-bit mono WAV of s at SpeechRate;
// streamed, its sizes are 0xFFFFFFFF as vLLM-Omni's streamed header
// (serving_speech.py _create_wav_header@d6240742).
func speechWAV(pcm []byte, streamed bool) []byte {
	b := make([]byte, 44, 44+len(pcm))
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+len(pcm)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], SpeechRate)
	binary.LittleEndian.PutUint32(b[28:], SpeechRate*2)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(len(pcm)))
	if streamed {
		binary.LittleEndian.PutUint32(b[4:], 0xFFFFFFFF)
		binary.LittleEndian.PutUint32(b[40:], 0xFFFFFFFF)
	}
	return append(b, pcm...)
}

// parseRef reads a ref_audio as vLLM-Omni takes it: it must start with
// http(s)://, data: or file:// (tts_adapters/qwen3_tts.py@d6240742); the
// simulator decodes only data:audio/...;base64, WAVs, 1-30 s long
// (serving_speech.py _resolve_ref_audio@d6240742).
func parseRef(ref string) (float64, error) {
	switch {
	case strings.HasPrefix(ref, "http://"), strings.HasPrefix(ref, "https://"), strings.HasPrefix(ref, "file://"):
		return 0, errors.New("the simulator decodes only data: reference audio")
	case !strings.HasPrefix(ref, "data:"):
		return 0, errors.New("ref_audio must be a URL (http(s)://), a base64 data URL (data:...), or a file URI (file://)")
	}
	_, b64, ok := strings.Cut(ref, ";base64,")
	if !ok {
		return 0, errors.New("ref_audio data URL is not base64")
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return 0, fmt.Errorf("ref_audio: %v", err)
	}
	info, err := parseWAV(raw)
	if err != nil {
		return 0, fmt.Errorf("ref_audio: %v", err)
	}
	if s := info.Seconds(); s < 1 || s > 30 {
		return s, fmt.Errorf("Reference audio must be between 1 and 30 seconds, got %.2fs", s)
	}
	return info.Seconds(), nil
}

// speech serves POST /v1/audio/speech in vLLM-Omni's shapes
// (vllm_omni/entrypoints/openai/serving_speech.py@d6240742): a whole
// body (wav: audio/wav, pcm: audio/pcm, no rate header), or, with
// stream_format "audio" and pcm or wav, a raw stream whose headers go
// out before the first audio and whose audio comes in 0.2 s chunks
// spread over the service time. stream:true without stream_format is
// vLLM-Omni's SSE, which the simulator does not produce (400, said so).
// Service time is BaseLatency plus PerAudioSecond per second produced;
// admission, shedding and FailRate are the transcription endpoint's;
// StreamFailRate and StreamCutRate abort a raw stream halfway (no
// in-band marker, as vLLM-Omni's). With Cache, a ref_audio string seen
// before (sha1, as vLLM-Omni's reference cache keys it) takes half the
// base latency less.
func (s *Server) speech(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	n := s.seq.Add(1)
	var req speechRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&req); err != nil {
		s.writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return
	}
	if req.Model != "" && req.Model != s.cfg.Model {
		s.writeModelNotFound(w, req.Model)
		return
	}
	if strings.TrimSpace(req.Input) == "" {
		s.fail(w, http.StatusBadRequest, "Input text cannot be empty")
		return
	}
	format := req.ResponseFormat
	if format == "" {
		format = "wav"
	}
	if format != "wav" && format != "pcm" {
		s.writeError(w, http.StatusBadRequest, fmt.Sprintf("the simulator produces wav and pcm, not %q", format))
		return
	}
	raw := req.StreamFormat == "audio"
	if req.Stream && !raw {
		s.writeError(w, http.StatusBadRequest, "the simulator does not produce vLLM-Omni's SSE speech stream: send stream_format \"audio\"")
		return
	}
	refHit := false
	if req.RefAudio != "" {
		if _, err := parseRef(req.RefAudio); err != nil {
			s.fail(w, http.StatusBadRequest, err.Error())
			return
		}
		if s.cfg.Cache {
			// vLLM-Omni's decoded-reference LRU is keyed by sha1 of the
			// ref_audio string (serving_speech.py _resolve_ref_audio@d6240742):
			// an identical reference skips its decoding and encoding.
			k := sha1.Sum([]byte(req.RefAudio))
			s.cacheMu.Lock()
			if s.refs == nil {
				s.refs = map[[20]byte]bool{}
			}
			refHit, s.refs[k] = s.refs[k], true
			s.cacheMu.Unlock()
		}
	}
	begin, ok := s.admit(w, r, start)
	if !ok {
		return
	}
	defer s.admission.release()
	samples := Speech(req.Input)
	pcm := make([]byte, 2*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(v))
	}
	seconds := float64(len(samples)) / SpeechRate
	service := s.cfg.BaseLatency + time.Duration(seconds*float64(s.cfg.PerAudioSecond))
	if refHit {
		service -= s.cfg.BaseLatency / 2 // the simulator's choice: half the base latency is the reference's
	}
	if s.cfg.FailRate > 0 && s.draw(n) < s.cfg.FailRate {
		if sleepUntil(r, begin.Add(service)) {
			s.fail(w, http.StatusInternalServerError, "Internal server error (simulated failure).")
		}
		return
	}
	// Counted in the vLLM families as a transcription is (the engine
	// runs it; the simulator's choice: 12.5 codec frames a second as its
	// completion tokens), before the last audio goes out.
	prefill := time.Duration(float64(service) * PrefillShare)
	done := func() {
		s.metrics.done(true, timing{queue: begin.Sub(start).Seconds(), prefill: prefill.Seconds(), decode: (service - prefill).Seconds(),
			e2e: time.Since(start).Seconds()}, int64(seconds*12.5)+1)
	}
	ct := "audio/" + format
	if !raw {
		if !sleepUntil(r, begin.Add(service)) {
			s.metrics.done(false, timing{}, 0)
			return
		}
		done()
		body := pcm
		if format == "wav" {
			body = speechWAV(pcm, false)
		}
		w.Header().Set("Content-Type", ct)
		w.Write(body)
		return
	}
	// A raw stream: headers at once, before any audio.
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush()
	}
	chunk := SpeechRate / 5 * 2 // 0.2 s of s16le
	parts := (len(pcm) + chunk - 1) / chunk
	fault := s.streamFault(n)
	for i := 0; i < parts; i++ {
		if fault != faultNone && i == parts/2 && i > 0 {
			// vLLM-Omni re-raises a mid-stream error inside its generator:
			// the response is aborted with no in-band marker
			// (serving_speech.py _generate_audio_chunks@d6240742).
			// StreamFailRate and StreamCutRate both end so.
			s.metrics.done(false, timing{}, 0)
			panic(http.ErrAbortHandler)
		}
		if !sleepUntil(r, begin.Add(service*time.Duration(i+1)/time.Duration(parts))) {
			s.metrics.done(false, timing{}, 0)
			return
		}
		if i == parts-1 {
			done()
		}
		p := pcm[i*chunk : min(len(pcm), (i+1)*chunk)]
		if i == 0 && format == "wav" {
			w.Write(speechWAV(nil, true)) // the header just before the first PCM chunk
		}
		w.Write(p)
		if fl != nil {
			fl.Flush()
		}
	}
}
