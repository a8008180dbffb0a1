package sim

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/task"
)

func postSpeech(t *testing.T, url string, body map[string]any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestSpeech: the vllm-omni persona speaks: a WAV whose duration follows
// the text, decoded by the tts task as a success; the same text sounds
// the same; a raw PCM stream sends its headers before its audio; bad
// references are vLLM-Omni's 400s; the vllm persona serves no speech.
func TestSpeech(t *testing.T) {
	_, ts := newTestServer(t, Config{Persona: PersonaVLLMOmni, BaseLatency: 200 * time.Millisecond})
	ref := "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(makeWAV(t, 16000, 1.5, 3))
	text := "Hello from the simulated voice."
	want := float64(len(text)) * SpeechSecondsPerChar
	var sums []string
	for range 2 {
		resp := postSpeech(t, ts.URL, map[string]any{"model": DefaultTTSModel, "input": text, "ref_audio": ref, "ref_text": "x"})
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/wav" {
			t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		out, _, _ := task.TTS.Decode(nil, resp.Header.Get("Content-Type"), b)
		a, err := task.ParseAudio(out)
		if _, class, msg := task.TTS.Score(out); err != nil || class != "" || a.SampleRate != SpeechRate || a.Seconds < want-0.001 || a.Seconds > want+0.001 {
			t.Fatalf("decoded %s (%v): class %q %s; want %v s", out, err, class, msg, want)
		}
		sums = append(sums, a.SHA256)
	}
	if sums[0] != sums[1] {
		t.Fatal("the same text was spoken differently")
	}

	sent := time.Now()
	resp := postSpeech(t, ts.URL, map[string]any{"input": text, "stream": true, "stream_format": "audio", "response_format": "pcm"})
	headers := time.Since(sent)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/pcm" || headers > 150*time.Millisecond {
		t.Fatalf("stream: %d %s after %v (want headers before the audio)", resp.StatusCode, resp.Header.Get("Content-Type"), headers)
	}
	var first time.Duration
	out, _, err := task.TTS.DecodeStream(bufio.NewReader(resp.Body), func() { first = time.Since(sent) })
	if a, _ := task.ParseAudio(out); err != nil || first < 15*time.Millisecond || first < headers || a.Seconds < want-0.001 {
		t.Fatalf("stream: first audio after %v, %s, %v", first, out, err)
	}

	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"input": ""}, "Input text cannot be empty"},
		{map[string]any{"input": "x", "ref_audio": "/data/ref.wav"}, "ref_audio must be a URL"},
		{map[string]any{"input": "x", "ref_audio": "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(makeWAV(t, 16000, 0.5, 3))}, "Reference audio too short (0.5s). At least 1s of clear speech is required."},
		{map[string]any{"input": "x", "stream": true, "response_format": "mp3"}, "requires response_format='pcm' or 'wav'. Got response_format='mp3'."},
		{map[string]any{"input": "x", "response_format": "opus"}, "the simulator produces wav, pcm and flac, not"},
	} {
		resp := postSpeech(t, ts.URL, c.body)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), c.msg) {
			t.Errorf("%v: %d %s, want 400 %q", c.body, resp.StatusCode, b, c.msg)
		}
	}

	// A stream cut halfway is aborted: the tts task reads stream_truncated.
	_, cut := newTestServer(t, Config{Persona: PersonaVLLMOmni, StreamCutRate: 1})
	resp = postSpeech(t, cut.URL, map[string]any{"input": text, "stream": true, "stream_format": "audio", "response_format": "pcm"})
	out, _, err = task.TTS.DecodeStream(bufio.NewReader(resp.Body), func() {})
	var se *task.StreamError
	if !errors.As(err, &se) || se.Class != "stream_truncated" || out != "" {
		t.Fatalf("cut stream: %q, %v; want stream_truncated", out, err)
	}

	// With Cache, an identical reference is answered faster; a variant
	// (one byte of the WAV changed) is not.
	_, cached := newTestServer(t, Config{Persona: PersonaVLLMOmni, Cache: true, BaseLatency: 300 * time.Millisecond})
	wav := makeWAV(t, 16000, 1.5, 5)
	took := func(wav []byte) time.Duration {
		t0 := time.Now()
		resp := postSpeech(t, cached.URL, map[string]any{"input": "x y z", "ref_audio": "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(wav)})
		io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("cache: %d", resp.StatusCode)
		}
		return time.Since(t0)
	}
	took(wav)
	hit := took(wav)
	wav[len(wav)-1] ^= 1
	miss := took(wav)
	if hit >= 250*time.Millisecond || miss < 300*time.Millisecond {
		t.Errorf("reference cache: identical %v (want < 250ms), variant %v (want >= 300ms)", hit, miss)
	}

	_, vl := newTestServer(t, Config{Persona: PersonaVLLM})
	if resp := postSpeech(t, vl.URL, map[string]any{"input": "x"}); resp.StatusCode != 404 {
		t.Errorf("vllm persona: /v1/audio/speech %d, want 404", resp.StatusCode)
	}
}

// TestSpeechSSE: the vllm-omni persona's stream:true is vLLM-Omni's SSE,
// framed as its _generate_audio_sse_events frames it: event: + data:
// lines; the first delta of a WAV stream is the 44-byte header alone,
// the rest the PCM; then speech.audio.done with usage; no [DONE]. With
// StreamFailRate the stream ends with speech.audio.error instead.
func TestSpeechSSE(t *testing.T) {
	_, ts := newTestServer(t, Config{Persona: PersonaVLLMOmni, BaseLatency: 100 * time.Millisecond})
	text := "Streamed over SSE."
	resp := postSpeech(t, ts.URL, map[string]any{"input": text, "stream": true})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	b, _ := io.ReadAll(resp.Body)
	events := strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n")
	var audio []byte
	for i, ev := range events {
		name, data, ok := strings.Cut(ev, "\n")
		var v struct {
			ResponseFormat string `json:"response_format"`
			Usage          map[string]any
		}
		if !ok || !strings.HasPrefix(name, "event: ") || !strings.HasPrefix(data, "data: {") || json.Unmarshal([]byte(data[6:]), &v) != nil {
			t.Fatalf("event %d is not event:/data: JSON: %q", i, ev)
		}
		var raw struct {
			Type, Audio string
		}
		json.Unmarshal([]byte(data[6:]), &raw)
		if raw.Type != strings.TrimPrefix(name, "event: ") {
			t.Fatalf("event %d: name %q, type %q", i, name, raw.Type)
		}
		switch {
		case i < len(events)-1:
			chunk, _ := base64.StdEncoding.DecodeString(raw.Audio)
			if raw.Type != "speech.audio.delta" || v.ResponseFormat != "wav" || (i == 0 && len(chunk) != 44) || (i > 0 && len(chunk) == 0) {
				t.Fatalf("delta %d: %s, %d bytes", i, raw.Type, len(chunk))
			}
			audio = append(audio, chunk...)
		default:
			if raw.Type != "speech.audio.done" || v.Usage["output_tokens"] == nil || v.Usage["input_token_details"] == nil {
				t.Fatalf("last event %q, want speech.audio.done with usage", ev)
			}
		}
	}
	if strings.Contains(string(b), "[DONE]") {
		t.Fatal("vLLM-Omni's speech SSE has no [DONE]")
	}
	out, _, _ := task.TTS.Decode(nil, "audio/wav", audio)
	if a, _ := task.ParseAudio(out); a.Seconds < float64(len(text))*SpeechSecondsPerChar-0.001 {
		t.Fatalf("the deltas' audio: %s", out)
	}

	_, fail := newTestServer(t, Config{Persona: PersonaVLLMOmni, StreamFailRate: 1})
	resp = postSpeech(t, fail.URL, map[string]any{"input": text, "stream": true, "response_format": "pcm"})
	b, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "event: speech.audio.error\ndata: {\"type\":\"speech.audio.error\",\"error\":{\"message\":") ||
		!strings.Contains(string(b), `"type":"server_error","param":null,"code":500}`) || strings.Contains(string(b), "speech.audio.done") {
		t.Fatalf("failed SSE stream ends %q", b[max(0, len(b)-300):])
	}
}

// TestSpeechSGLangOmni: the sglang-omni persona serves SGLang-Omni's
// speech: a whole WAV; stream:true is raw s16le whose headers (with
// X-Sample-Rate, X-Channels, X-Bit-Depth) wait for the first chunk;
// stream:true with wav is its typed 400; past 16 running + 16 queued,
// 503 "The request queue is full."; speech is in none of /metrics'
// families; with Cache, an identical reference and ref_text hit, another
// ref_text misses.
func TestSpeechSGLangOmni(t *testing.T) {
	_, ts := newTestServer(t, Config{Persona: PersonaSGLangOmni, BaseLatency: 400 * time.Millisecond})
	text := "SGLang-Omni speaks."
	resp := postSpeech(t, ts.URL, map[string]any{"input": text})
	b, _ := io.ReadAll(resp.Body)
	out, _, _ := task.TTS.Decode(nil, resp.Header.Get("Content-Type"), b)
	if _, class, _ := task.TTS.Score(out); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/wav" || class != "" || resp.Header.Get("X-Finish-Reason") != "stop" {
		t.Fatalf("whole body: %d %s %s", resp.StatusCode, resp.Header, out)
	}

	sent := time.Now()
	resp = postSpeech(t, ts.URL, map[string]any{"input": text, "stream": true, "response_format": "pcm"})
	headers := time.Since(sent)
	// 19 characters, 1.33 s: 7 chunks over 400 ms + 0 per second; the
	// first chunk is due after 400/7 ms.
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/pcm" || resp.Header.Get("X-Sample-Rate") != "24000" ||
		resp.Header.Get("X-Channels") != "1" || resp.Header.Get("X-Bit-Depth") != "16" || headers < 50*time.Millisecond {
		t.Fatalf("raw stream: %d %v after %v (want the headers with the first chunk)", resp.StatusCode, resp.Header, headers)
	}
	out, _, err := task.TTS.(task.HeaderStreamer).DecodeStreamHeader(resp.Header, bufio.NewReader(resp.Body), func() {})
	if a, _ := task.ParseAudio(out); err != nil || a.RateFrom != "X-Sample-Rate header" || a.Seconds < float64(len(text))*SpeechSecondsPerChar-0.001 {
		t.Fatalf("raw stream: %s %v", out, err)
	}

	resp = postSpeech(t, ts.URL, map[string]any{"input": text, "stream": true})
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || string(b) != `{"error":{"message":"stream=true requires response_format='pcm'","type":"BadRequestError","param":"response_format","code":400}}` {
		t.Fatalf("stream with wav: %d %s", resp.StatusCode, b)
	}

	// 33 at once: 16 run, 16 wait, the 33rd is refused at once.
	_, busy := newTestServer(t, Config{Persona: PersonaSGLangOmni, BaseLatency: 600 * time.Millisecond})
	codes := make(chan int, 33)
	bodies := make(chan string, 33)
	for range 33 {
		go func() {
			resp, err := http.Post(busy.URL+"/v1/audio/speech", "application/json", strings.NewReader(`{"input":"x y"}`))
			if err != nil {
				codes <- 0
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
			bodies <- string(b)
		}()
	}
	n503 := 0
	for range 33 {
		if c := <-codes; c == 503 {
			n503++
		} else if c != 200 {
			t.Errorf("status %d", c)
		}
	}
	if n503 != 1 {
		t.Fatalf("%d of 33 refused, want 1 (16 running + 16 queued)", n503)
	}
	found := false
	for range 33 {
		if <-bodies == `{"error":{"message":"The request queue is full.","type":"server_error","param":null,"code":null}}` {
			found = true
		}
	}
	if !found {
		t.Fatal("no 503 body in SGLang-Omni's shape")
	}
	mresp, err := http.Get(ts.URL + "/metrics")
	if err == nil {
		mb, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if strings.Contains(string(mb), "/v1/audio/speech") || strings.Contains(string(mb), "sglang_omni_http_requests_total{") {
			t.Fatalf("speech counted in /metrics:\n%s", mb)
		}
	}

	_, cached := newTestServer(t, Config{Persona: PersonaSGLangOmni, Cache: true, BaseLatency: 300 * time.Millisecond})
	ref := "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(makeWAV(t, 16000, 1.5, 9))
	took := func(refText string) time.Duration {
		t0 := time.Now()
		resp := postSpeech(t, cached.URL, map[string]any{"input": "x y z", "ref_audio": ref, "ref_text": refText})
		io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("cache: %d", resp.StatusCode)
		}
		return time.Since(t0)
	}
	took("a")
	hit, miss := took("a"), took("b")
	if hit >= 250*time.Millisecond || miss < 300*time.Millisecond {
		t.Errorf("reference cache: identical %v (want < 250ms), another ref_text %v (want >= 300ms)", hit, miss)
	}
}

// TestSpeechFLAC: both speech personas answer response_format flac with
// a FLAC body (audio/flac) that benchseal's tts task decodes to the same
// audio as the WAV of the same text; SGLang-Omni's whole body carries
// X-Prompt-Tokens and X-Engine-Time; vLLM-Omni refuses a FLAC stream as
// its request validator does; mp3 stays refused (the simulator's gap).
func TestSpeechFLAC(t *testing.T) {
	text := "Lossless, please."
	for _, persona := range []string{PersonaVLLMOmni, PersonaSGLangOmni} {
		_, ts := newTestServer(t, Config{Persona: persona, BaseLatency: 20 * time.Millisecond})
		var sums []string
		for _, format := range []string{"wav", "flac"} {
			resp := postSpeech(t, ts.URL, map[string]any{"input": text, "response_format": format})
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/"+format {
				t.Fatalf("%s %s: %d %s %.200s", persona, format, resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			out, _, _ := task.TTS.Decode(nil, resp.Header.Get("Content-Type"), b)
			a, err := task.ParseAudio(out)
			if _, class, msg := task.TTS.Score(out); err != nil || class != "" || a.SampleRate != SpeechRate {
				t.Fatalf("%s %s: decoded %s (%v): class %q %s", persona, format, out, err, class, msg)
			}
			sums = append(sums, a.SHA256)
			if persona == PersonaSGLangOmni {
				if resp.Header.Get("X-Prompt-Tokens") != "17" || !strings.Contains(resp.Header.Get("X-Engine-Time"), ".") {
					t.Errorf("%s whole-body headers: %v", format, resp.Header)
				}
			}
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: the FLAC decodes to other audio than the WAV", persona)
		}
		resp := postSpeech(t, ts.URL, map[string]any{"input": text, "response_format": "mp3"})
		if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 400 || !strings.Contains(string(b), "the simulator produces wav, pcm and flac") {
			t.Errorf("%s mp3: %d %s", persona, resp.StatusCode, b)
		}
	}
	_, vo := newTestServer(t, Config{Persona: PersonaVLLMOmni})
	resp := postSpeech(t, vo.URL, map[string]any{"input": text, "response_format": "flac", "stream": true})
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 400 || !strings.Contains(string(b), "requires response_format='pcm' or 'wav'. Got response_format='flac'.") {
		t.Errorf("vllm-omni flac stream: %d %s", resp.StatusCode, b)
	}
}
