package sim

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/benchseal/benchseal/internal/engine"
)

// Realtime recognition (GET /v1/realtime, a WebSocket), in the protocol
// of the persona's engine row for the realtime task (engine.RealtimeDeltas
// for vllm and vllm-omni, engine.RealtimeSegments for sglang-omni). The
// simulator recognises the stream as it recognises a file: the clip whose
// samples the audio so far is (at most one byte differing) gives its
// transcript, spread over the clip's duration; audio of no corpus clip
// gets unknownText. A decode takes BaseLatency + PerAudioSecond × the
// seconds it decodes in one of the admission's running slots: a vllm
// session holds its slot from its first commit to transcription.done,
// as vLLM's scheduler keeps a paused streaming session's slot; an sglang-omni
// session asks for one per decode, each decode a request of its own.
//
// vllm (vllm/frontend/entrypoints/speech_to_text/realtime/connection.py
// @055e47c2, vllm/model_executor/models/qwen3_asr_realtime.py@de5f26d5):
// session.created {id:"sess-…", created} on connect; session.update
// {model} validates the model (no reply; invalid_event without it,
// model_not_found for another); a commit before it is
// model_not_validated; the first commit starts generation, later ones
// are ignored; commit {final:true} ends the audio. Qwen3-ASR's realtime
// decodes each 5 s segment on its own, once its 5 s are in (the rest
// after the final commit), and every segment's deltas begin with its
// "language English<asr_text>" header, one delta each ("language",
// " English", "<asr_text>"), then a word a delta, ChatTokenInterval
// apart; transcription.done {text: the deltas joined, usage}. Errors are
// {type:"error", error:"<message>", code}. The connection stays open
// after done. /metrics counts the connections
// (vllm:websocket_connections_active, _total, and
// _connection_duration_seconds, vllm/entrypoints/openai/realtime/
// metrics.py@b42200fc).
//
// sglang-omni (sglang_omni/serve/realtime/transcription_session.py
// @0c940be4, events.py@0c940be4), on ?intent=transcription only (another
// intent is refused with 400 before the upgrade: the simulator serves no
// conversation sessions): every event carries event_id "evt_<hex>" and
// event_index from 1; session.created {session:{id:"sess_<hex>", object,
// model, intent, input_audio_format:"pcm16", language, decode_interval_ms:
// 2000, turn_detection:null}}; session.update {session:{language,
// turn_detection, input_audio_format}} answered session.updated (any
// other key: invalid_event); the first append opens segment 0; each
// decode_interval_ms of audio re-decodes the segment from its start
// (one decode at a time, audio meanwhile coalescing into one follow-up)
// and sends transcription.segment {segment_id, audio_start_ms,
// audio_end_ms, text, is_final:false} when its text changed, the whole
// hypothesis, not a delta; the simulator hears a partial's last word
// wrong on every other decode, the first included (its last letter
// doubled), so the next hypothesis revises it, as cumulative re-decodes
// do at their edge. The
// client's transcription.done sends input_audio_buffer.committed
// {segment_id}, the final segment (is_final:true) and
// transcription.completed {text}; the simulator serves one segment a
// session, so it answers input_audio_buffer.commit and clear (which
// close or drop a segment on the engine) with unsupported_event. Errors
// are {type:"error", error:{type, code, message}}. SGLang-Omni counts no WebSocket on
// /metrics.

// realtimeProtocol is the persona's realtime protocol, false when its
// engine serves none.
func (s *Server) realtimeProtocol() (engine.StreamEvents, bool) {
	row, ok := s.p().eng.Task(engine.TaskRealtime)
	return row.Stream, ok
}

// Qwen3-ASR's realtime segment on vLLM, and SGLang-Omni's default
// re-decode interval, both in seconds of audio.
const (
	vllmSegmentSeconds   = 5.0
	sglangDecodeInterval = 2.0
	pcmBytesPerSecond    = engine.RealtimeRate * 2
)

func (s *Server) realtimeSession(w http.ResponseWriter, r *http.Request) {
	proto, _ := s.realtimeProtocol()
	if proto == engine.RealtimeSegments {
		if intent := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("intent"))); intent != "transcription" {
			s.writeError(w, http.StatusBadRequest, "the simulator serves realtime sessions with intent=transcription only")
			return
		}
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c.SetReadLimit(32 << 20)
	opened := time.Now()
	counts := proto == engine.RealtimeDeltas
	if counts {
		s.metrics.wsOpen()
		defer func() { s.metrics.wsClose(time.Since(opened).Seconds()) }()
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	rs := &rtServer{s: s, c: c, ctx: ctx, proto: proto, wake: make(chan struct{}, 1), clip: -2}
	rs.run()
	c.CloseNow()
}

// rtServer is one simulated realtime session.
type rtServer struct {
	s     *Server
	c     *websocket.Conn
	ctx   context.Context
	proto engine.StreamEvents

	wmu   sync.Mutex // event_index and the write order
	index int64

	mu        sync.Mutex
	pcm       []byte
	ended     bool // vLLM's final commit, SGLang-Omni's transcription.done
	generated bool // vLLM's generation started
	validated bool // vLLM's session.update
	clip      int  // the corpus clip the audio is, -1 none, -2 not looked up
	wake      chan struct{}
	worker    sync.WaitGroup

	// The engine request's stages (the decode worker's alone): from
	// its start, the admission waits and the first decode's service.
	genStart      time.Time
	queued, first time.Duration
}

// finished counts the session's engine request as the engine does: one
// request, queued while its decodes waited, its first decode the
// prefill, the rest decode.
func (rs *rtServer) finished(tokens int) {
	e2e := time.Since(rs.genStart).Seconds()
	q, p := rs.queued.Seconds(), rs.first.Seconds()
	rs.s.metrics.done(true, timing{queue: q, prefill: p, decode: max(e2e-q-p, 0), e2e: e2e}, int64(tokens))
}

func (rs *rtServer) run() {
	if rs.proto == engine.RealtimeSegments {
		rs.send(map[string]any{"type": "session.created", "session": rs.sglangSession()})
	} else {
		rs.send(map[string]any{"type": "session.created", "id": "sess-" + randHex(16), "created": time.Now().Unix()})
	}
	defer rs.worker.Wait()
	for {
		_, b, err := rs.c.Read(rs.ctx)
		if err != nil {
			rs.mu.Lock()
			rs.ended = true
			rs.mu.Unlock()
			rs.poke()
			return
		}
		var ev struct {
			Type    string          `json:"type"`
			Audio   *string         `json:"audio"`
			Final   bool            `json:"final"`
			Model   *string         `json:"model"`
			Session json.RawMessage `json:"session"`
		}
		if json.Unmarshal(b, &ev) != nil {
			rs.fail("invalid_request_error", "invalid_json", "Invalid JSON")
			continue
		}
		if rs.proto == engine.RealtimeSegments {
			rs.sglangEvent(ev.Type, ev.Audio, ev.Session)
		} else {
			rs.vllmEvent(ev.Type, ev.Audio, ev.Model, ev.Final)
		}
	}
}

// send writes one server event; SGLang-Omni's carry event_id and
// event_index.
func (rs *rtServer) send(ev map[string]any) {
	rs.wmu.Lock()
	defer rs.wmu.Unlock()
	if rs.proto == engine.RealtimeSegments {
		rs.index++
		ev["event_id"], ev["event_index"] = "evt_"+randHex(16), rs.index
	}
	b, _ := json.Marshal(ev)
	_ = rs.c.Write(rs.ctx, websocket.MessageText, b)
}

// fail sends the protocol's error event.
func (rs *rtServer) fail(typ, code, msg string) {
	if rs.proto == engine.RealtimeSegments {
		rs.send(map[string]any{"type": "error", "error": map[string]any{"type": typ, "code": code, "message": msg}})
		return
	}
	rs.send(map[string]any{"type": "error", "error": msg, "code": code})
}

func (rs *rtServer) poke() {
	select {
	case rs.wake <- struct{}{}:
	default:
	}
}

// appendAudio decodes an append's base64 PCM16 into the buffer.
func (rs *rtServer) appendAudio(audio *string) bool {
	if audio == nil {
		rs.fail("invalid_request_error", "invalid_audio", "Invalid audio data")
		return false
	}
	b, err := base64.StdEncoding.DecodeString(*audio)
	if err != nil || len(b) == 0 || len(b)%2 != 0 {
		rs.fail("invalid_request_error", "invalid_audio", "Invalid audio data")
		return false
	}
	rs.mu.Lock()
	rs.pcm = append(rs.pcm, b...)
	rs.mu.Unlock()
	rs.poke()
	return true
}

func (rs *rtServer) vllmEvent(typ string, audio, model *string, final bool) {
	switch typ {
	case "session.update":
		switch {
		case model == nil:
			rs.fail("", "invalid_event", "Missing required field: model")
		case *model != rs.s.cfg.Model:
			rs.fail("", "model_not_found", fmt.Sprintf("The model `%s` does not exist.", *model))
		default:
			rs.mu.Lock()
			rs.validated = true
			rs.mu.Unlock()
		}
	case "input_audio_buffer.append":
		rs.appendAudio(audio)
	case "input_audio_buffer.commit":
		rs.mu.Lock()
		validated, start := rs.validated, !final && !rs.generated
		if validated && final {
			rs.ended = true
		}
		rs.generated = rs.generated || start && validated
		rs.mu.Unlock()
		switch {
		case !validated:
			rs.fail("", "model_not_validated", "Model not validated. Make sure to validate the model by sending a session.update event.")
		case final:
			rs.poke()
		case start:
			rs.worker.Go(rs.vllmGenerate)
		}
	default:
		rs.fail("", "unknown_event", "Unknown event type: "+typ)
	}
}

// vllmGenerate is Qwen3-ASR's realtime generation: one 5 s segment at a
// time, each decoded once it is in (the remainder after the final
// commit), its deltas the segment's header and words.
func (rs *rtServer) vllmGenerate() {
	rs.genStart = time.Now()
	// The session is one engine request: once scheduled it holds a running
	// slot until it finishes, also while paused for more audio
	// (vllm/v1/core/sched/scheduler.py, newer than @00024d31, counts
	// num_waiting_for_streaming_input against max_num_seqs), so sessions
	// beyond the limit wait whole.
	tk, _, err := rs.s.admission.admit(rs.ctx, ask{slots: 1}, nil)
	if err != nil {
		return
	}
	defer tk.release()
	rs.queued = time.Since(rs.genStart)
	seg := vllmSegmentSeconds * pcmBytesPerSecond
	var full strings.Builder
	prompt, completion := 0, 0
	for k := 0; ; k++ {
		from := k * int(seg)
		n, ended, ok := rs.waitFor(from + int(seg))
		if !ok {
			return
		}
		if n <= from {
			break // ended on a segment boundary
		}
		to := min(n, from+int(seg))
		if to-from < int(seg) && !ended {
			continue
		}
		words := rs.words(from, to)
		if !rs.serve(float64(to-from) / pcmBytesPerSecond) {
			return
		}
		deltas := append([]string{"language", " English", "<asr_text>"}, words...)
		for i := range words {
			if i > 0 {
				deltas[3+i] = " " + words[i]
			}
		}
		for i, d := range deltas {
			if i > 0 && !rs.sleep(ChatTokenInterval) {
				return
			}
			full.WriteString(d)
			rs.send(map[string]any{"type": "transcription.delta", "delta": d})
		}
		prompt += int(promptTokens(float64(to-from) / pcmBytesPerSecond))
		completion += len(deltas)
		if to == n && ended {
			break
		}
	}
	rs.finished(completion)
	rs.send(map[string]any{"type": "transcription.done", "text": full.String(),
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
}

func (rs *rtServer) sglangEvent(typ string, audio *string, session json.RawMessage) {
	rs.mu.Lock()
	done := rs.ended
	rs.mu.Unlock()
	if done {
		rs.fail("invalid_request_error", "input_already_done", "The input is already done.")
		return
	}
	switch typ {
	case "session.update":
		var u map[string]json.RawMessage
		if err := json.Unmarshal(session, &u); err != nil && len(session) > 0 {
			rs.fail("invalid_request_error", "invalid_event", "session must be an object")
			return
		}
		for k, v := range u {
			switch {
			case k == "language" || k == "turn_detection" && string(v) == "null":
			case k == "input_audio_format" && string(v) == `"pcm16"`:
			case k == "turn_detection":
				rs.fail("invalid_request_error", "unsupported_turn_detection", "The simulator serves turn_detection null only.")
				return
			default:
				rs.fail("invalid_request_error", "invalid_event", fmt.Sprintf("session.%s: Extra inputs are not permitted", k))
				return
			}
		}
		rs.send(map[string]any{"type": "session.updated", "session": rs.sglangSession()})
	case "input_audio_buffer.append":
		rs.mu.Lock()
		first := len(rs.pcm) == 0 && !rs.generated
		rs.generated = true
		rs.mu.Unlock()
		if rs.appendAudio(audio) && first {
			rs.worker.Go(rs.sglangDecode)
		}
	case "input_audio_buffer.commit", "input_audio_buffer.clear":
		// The engine closes (or drops) the segment and opens another on
		// the next audio; the simulator serves one segment a session.
		rs.fail("invalid_request_error", "unsupported_event", "the simulator does not simulate "+typ+": it serves one segment a session, ended by transcription.done")
	case "transcription.done":
		rs.mu.Lock()
		rs.ended = true
		started := rs.generated
		rs.mu.Unlock()
		rs.poke()
		if !started {
			rs.send(map[string]any{"type": "transcription.completed", "text": ""})
		}
	default:
		rs.fail("invalid_request_error", "unsupported_event", fmt.Sprintf("Unsupported event type: '%s'", typ))
	}
}

func (rs *rtServer) sglangSession() map[string]any {
	return map[string]any{"id": "sess_" + randHex(16), "object": "realtime.session", "model": rs.s.cfg.Model,
		"intent": "transcription", "input_audio_format": "pcm16", "language": nil,
		"decode_interval_ms": int(sglangDecodeInterval * 1000), "turn_detection": nil}
}

// sglangDecode is segment 0's decode worker: a partial each
// decode_interval_ms of audio, the final at transcription.done.
func (rs *rtServer) sglangDecode() {
	rs.genStart = time.Now()
	step := int(sglangDecodeInterval * pcmBytesPerSecond)
	next, last, decodes := step, "", 0
	for {
		n, ended, ok := rs.waitFor(next)
		if !ok {
			return
		}
		if ended {
			break
		}
		if n < next {
			continue
		}
		if !rs.decode(float64(n) / pcmBytesPerSecond) {
			return
		}
		decodes++
		words := rs.words(0, n)
		if decodes%2 == 1 && len(words) > 0 {
			w := words[len(words)-1]
			words[len(words)-1] = w + w[len(w)-1:]
		}
		// Audio that came during the decode coalesces into one
		// follow-up: the next refresh is an interval past this one's end.
		next = n + step
		rs.mu.Lock()
		closed := rs.ended
		rs.mu.Unlock()
		if text := strings.Join(words, " "); text != last && !closed {
			last = text
			rs.send(map[string]any{"type": "transcription.segment", "segment_id": 0, "audio_start_ms": 0,
				"audio_end_ms": n * 1000 / pcmBytesPerSecond, "text": text, "is_final": false})
		}
	}
	rs.mu.Lock()
	n := len(rs.pcm)
	rs.mu.Unlock()
	rs.send(map[string]any{"type": "input_audio_buffer.committed", "segment_id": 0})
	if !rs.decode(float64(n) / pcmBytesPerSecond) {
		return
	}
	text := strings.Join(rs.words(0, n), " ")
	rs.finished(len(strings.Fields(text)))
	rs.send(map[string]any{"type": "transcription.segment", "segment_id": 0, "audio_start_ms": 0,
		"audio_end_ms": n * 1000 / pcmBytesPerSecond, "text": text, "is_final": true})
	rs.send(map[string]any{"type": "transcription.completed", "text": text})
}

// waitFor waits until the buffer holds n bytes or the audio ended: the
// bytes it holds, whether it ended, false when the session went away.
func (rs *rtServer) waitFor(n int) (int, bool, bool) {
	for {
		rs.mu.Lock()
		have, ended := len(rs.pcm), rs.ended
		rs.mu.Unlock()
		if have >= n || ended {
			return have, ended, rs.ctx.Err() == nil
		}
		select {
		case <-rs.wake:
		case <-rs.ctx.Done():
			return have, ended, false
		}
	}
}

// decode holds a running slot for a decode of seconds of audio (called
// by the session's one decode worker): SGLang-Omni's sessions run each
// decode as a request of its own.
func (rs *rtServer) decode(seconds float64) bool {
	asked := time.Now()
	tk, _, err := rs.s.admission.admit(rs.ctx, ask{slots: 1}, nil)
	if err != nil {
		return false
	}
	defer tk.release()
	rs.queued += time.Since(asked)
	return rs.serve(seconds)
}

// serve takes a decode's service time, BaseLatency + PerAudioSecond ×
// seconds, in a running slot already held.
func (rs *rtServer) serve(seconds float64) bool {
	service := rs.s.cfg.BaseLatency + time.Duration(seconds*float64(rs.s.cfg.PerAudioSecond))
	if rs.first == 0 {
		rs.first = service
	}
	return rs.sleep(service)
}

func (rs *rtServer) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-rs.ctx.Done():
		return false
	}
}

// words are the words of the transcript the audio's bytes [from, to)
// hold: the clip's words spread evenly over its samples.
func (rs *rtServer) words(from, to int) []string {
	rs.mu.Lock()
	pcm := rs.pcm[:to]
	if rs.clip == -2 || rs.clip == -1 && to == len(rs.pcm) {
		rs.clip = rs.s.clipOfPCM(pcm)
	}
	ci := rs.clip
	rs.mu.Unlock()
	var text string
	total := to
	if ci >= 0 {
		text = rs.s.recogniseClip(ci)
		total = rs.s.pcmOf(ci)
	} else {
		text = unknownText(rs.s.cfg.Seed, to)
	}
	all := strings.Fields(text)
	at := func(b int) int { return min(len(all), len(all)*b/max(total, 1)) }
	if to >= total {
		return all[at(from):]
	}
	return all[at(from):at(to)]
}

// clipOfPCM is the corpus clip whose samples begin with pcm (at most one
// byte differing: a variant), -1 for none.
func (s *Server) clipOfPCM(pcm []byte) int {
	for i, d := range s.clipSamples() {
		if len(d) >= len(pcm) && differAtMostOne(d[:len(pcm)], pcm) {
			return i
		}
	}
	return -1
}

// clipSamples are the corpus clips' samples (each WAV's data chunk; nil
// for a clip that is no WAV), found once.
func (s *Server) clipSamples() [][]byte {
	s.samplesOnce.Do(func() {
		s.samples = make([][]byte, len(s.cfg.Corpus))
		for i, c := range s.cfg.Corpus {
			if w, err := parseWAV(c.Audio); err == nil {
				s.samples[i] = c.Audio[w.DataOffset : w.DataOffset+w.DataSize]
			}
		}
	})
	return s.samples
}

func (s *Server) pcmOf(i int) int { return len(s.clipSamples()[i]) }

// recogniseClip is clip i's answer (its transcript with the configured
// word errors).
func (s *Server) recogniseClip(i int) string {
	return withErrors(s.cfg.Corpus[i].Text, s.cfg.WordErrorRate, s.cfg.Seed, s.index.keys[i])
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
