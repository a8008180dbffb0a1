package task

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// Sessioner is a task whose request is a session over a connection of
// its own (realtime: a WebSocket), not one HTTP POST: the runner calls
// Session in place of sending the envelope, and keeps what it returns as
// it keeps a decoded answer (text: the record's, also on an error, so a
// failed session's timeline is sealed too; id: the server's id of it).
type Sessioner interface {
	Session(ctx context.Context, req *SessionRequest) (text, id string, err error)
}

// SessionRequest is one session: where, what to stream, and the
// runner's clock and pacer.
type SessionRequest struct {
	URL    string      // the target's URL plus the task's Path, http(s)
	Header http.Header // the handshake's own headers (Authorization), never recorded
	Client *http.Client
	Target Target
	// Audio is the clip's variant as a whole WAV; its samples are
	// [DataOffset, DataOffset+DataSize) of it.
	Audio                perturb.Splice
	DataOffset, DataSize int64
	Rate                 int
	Rule                 schemas.Realtime
	// Now is the records' clock (ns since run.json's started_at);
	// SleepUntil returns at that clock's ns, or with ctx's error.
	Now        func() int64
	SleepUntil func(ctx context.Context, ns int64) error
	// OnText is called with the receive time of the first event that
	// carries text.
	OnText func(at int64)
}

// SessionError is a session the server ended with an error event, or
// that ended before the protocol's final event: Class is the record's
// error class.
type SessionError struct {
	Class, Msg string
}

func (e *SessionError) Error() string { return e.Msg }

// ErrSession is the class of a session the server failed with an error
// event (vLLM's error {error, code}, SGLang-Omni's error {error:{type,
// code, message}}); ErrLateStream of one the client did not pace: a
// chunk went out more than the rule's LateMs after its planned time (a
// busy client host), so the server was not sent real-time audio and the
// session is no success, whatever it answered.
const (
	ErrSession    = "session_error"
	ErrLateStream = "late_stream"
)

// Session streams req's clip over one WebSocket: the protocol's opening
// (session.update, and vLLM's first commit), then one
// input_audio_buffer.append a chunk at its planned time (the planned
// start plus k × ChunkMs ÷ Speed), then the end of audio (vLLM: commit
// {final:true}; SGLang-Omni: the client's transcription.done), and waits
// for the final event (transcription.done; transcription.completed).
// Neither server closes the socket after it: the client closes it. A reader keeps every
// event with its receive time from the first; an error event ends the
// session as a SessionError.
func (realtime) Session(ctx context.Context, req *SessionRequest) (string, string, error) {
	proto, err := realtimeProtocol(req.Target.Fields[FieldProtocol])
	if err != nil {
		return "", "", err
	}
	s := &rtSession{req: req, proto: proto, rec: &RealtimeSession{Protocol: string(proto)},
		final: make(chan struct{}), opened: make(chan struct{})}
	u := req.URL
	if proto == engine.RealtimeSegments {
		u += "?intent=transcription"
	}
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: req.Client, HTTPHeader: req.Header})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			err = &SessionError{Class: schemas.ErrHTTP, Msg: fmt.Sprintf("HTTP %d to the WebSocket handshake", resp.StatusCode)}
		}
		return s.rec.String(), "", err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(4 << 20)
	readCtx, stopRead := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.read(readCtx, conn) })
	err = s.stream(ctx, conn)
	if err == nil {
		select {
		case <-s.final:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if err == nil {
		conn.Close(websocket.StatusNormalClosure, "")
	}
	stopRead()
	conn.CloseNow()
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		err = s.err // the server's own account comes first
	}
	if k, late := LateChunk(req.Rule, s.rec); err == nil && late > 0 {
		err = &SessionError{Class: ErrLateStream, Msg: fmt.Sprintf("chunk %d went out %.1f ms after its planned time, beyond the %g ms bound: the client did not stream at %g× real time",
			k, float64(late)/1e6, req.Rule.LateMs, req.Rule.Speed)}
	}
	return s.rec.String(), s.id, err
}

type rtSession struct {
	req   *SessionRequest
	proto engine.StreamEvents

	mu     sync.Mutex
	rec    *RealtimeSession
	id     string
	err    error // the first error event, or the stream's end before its final event
	texted bool
	done   bool // the final event came

	final  chan struct{} // closed at the final event or an error
	opened chan struct{} // closed at session.created (or the reader's end)
}

// stream writes the opening, the chunks at their planned times and the
// end of audio.
func (s *rtSession) stream(ctx context.Context, conn *websocket.Conn) error {
	req := s.req
	select {
	case <-s.opened:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := s.failed(); err != nil {
		return err
	}
	write := func(b []byte) error { return conn.Write(ctx, websocket.MessageText, b) }
	if err := write(s.update()); err != nil {
		return err
	}
	if s.proto == engine.RealtimeDeltas {
		// vLLM starts generation at the first commit; the audio then
		// streams into it.
		if err := write([]byte(`{"type":"input_audio_buffer.commit"}`)); err != nil {
			return err
		}
	}
	cb := ChunkBytes(req.Rule.ChunkMs, req.Rate)
	s.rec.ChunkBytes = cb
	n := int((req.DataSize + int64(cb) - 1) / int64(cb))
	h := sha256.New()
	head, tail := spliceRange(req.Audio, 0, req.DataOffset, nil), spliceRange(req.Audio, req.DataOffset+req.DataSize, req.Audio.Len(), nil)
	h.Write(head)
	pcm := make([]byte, 0, cb)
	const pre, post = `{"type":"input_audio_buffer.append","audio":"`, `"}`
	msg := make([]byte, 0, len(pre)+base64.StdEncoding.EncodedLen(cb)+len(post))
	chunks := make([]int64, 0, n)
	start := req.Now()
	s.mu.Lock()
	s.rec.PlannedNs = start
	s.mu.Unlock()
	for k := range n {
		from := req.DataOffset + int64(k)*int64(cb)
		pcm = spliceRange(req.Audio, from, min(from+int64(cb), req.DataOffset+req.DataSize), pcm[:0])
		msg = append(msg[:0], pre...)
		msg = base64.StdEncoding.AppendEncode(msg, pcm)
		msg = append(msg, post...)
		if err := req.SleepUntil(ctx, start+PlannedOffset(req.Rule, k)); err != nil {
			s.setChunks(chunks)
			return err
		}
		if err := s.failed(); err != nil {
			s.setChunks(chunks)
			return err
		}
		chunks = append(chunks, req.Now())
		if err := write(msg); err != nil {
			s.setChunks(chunks)
			return err
		}
		h.Write(pcm)
	}
	h.Write(tail)
	// The end of audio: vLLM's final commit puts the end of its audio
	// queue; SGLang-Omni's transcription.done finalises every segment
	// (a commit there only closes one).
	end := `{"type":"transcription.done"}`
	if s.proto == engine.RealtimeDeltas {
		end = `{"type":"input_audio_buffer.commit","final":true}`
	}
	s.mu.Lock()
	s.rec.ChunksNs = chunks
	s.rec.StreamSHA256 = hex.EncodeToString(h.Sum(nil))
	s.rec.AudioEndNs = req.Now()
	s.mu.Unlock()
	return write([]byte(end))
}

func (s *rtSession) setChunks(c []int64) {
	s.mu.Lock()
	s.rec.ChunksNs = c
	s.mu.Unlock()
}

func (s *rtSession) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// LateChunk is the first chunk of s sent more than r's LateMs after its
// planned time, and by how many ns it was late; 0 late when none was.
func LateChunk(r schemas.Realtime, s *RealtimeSession) (int, int64) {
	bound := int64(r.LateMs * 1e6)
	for k, at := range s.ChunksNs {
		if late := at - s.PlannedNs - PlannedOffset(r, k); late > bound {
			return k, late
		}
	}
	return -1, 0
}

// PlannedOffset is chunk k's planned time after its session's planned
// start, in ns: k × ChunkMs ÷ Speed (verify derives it again).
func PlannedOffset(r schemas.Realtime, k int) int64 {
	return int64(float64(k) * float64(r.ChunkMs) * 1e6 / r.Speed)
}

// update is the protocol's session.update.
func (s *rtSession) update() []byte {
	t := s.req.Target
	var v any
	if s.proto == engine.RealtimeDeltas {
		v = map[string]any{"type": "session.update", "model": t.Model}
	} else {
		sess := map[string]any{"input_audio_format": "pcm16", "turn_detection": nil}
		if l := t.Fields[FieldLanguage]; l != "" {
			sess["language"] = l
		}
		v = map[string]any{"type": "session.update", "session": sess}
	}
	b, _ := json.Marshal(v)
	return b
}

// rtEvent is the union of both protocols' server events' members the
// record keeps.
type rtEvent struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	Delta      string          `json:"delta"`
	Text       string          `json:"text"`
	SegmentID  *int            `json:"segment_id"`
	IsFinal    bool            `json:"is_final"`
	EventIndex *int64          `json:"event_index"`
	Code       json.RawMessage `json:"code"`
	Error      json.RawMessage `json:"error"`
	Session    *struct {
		ID string `json:"id"`
	} `json:"session"`
}

// read keeps every server event until the connection ends.
func (s *rtSession) read(ctx context.Context, conn *websocket.Conn) {
	var openOnce sync.Once
	open := func() { openOnce.Do(func() { close(s.opened) }) }
	defer open()
	for {
		_, b, err := conn.Read(ctx)
		at := s.req.Now()
		if err != nil {
			s.mu.Lock()
			if !s.done && s.err == nil && ctx.Err() == nil {
				s.err = &SessionError{Class: schemas.ErrStreamTruncated, Msg: "the connection ended before the final event: " + err.Error()}
				close(s.final)
			}
			s.mu.Unlock()
			return
		}
		var e rtEvent
		if err := json.Unmarshal(b, &e); err != nil || e.Type == "" {
			s.fail(&SessionError{Class: schemas.ErrDecode, Msg: fmt.Sprintf("a server event that is not one: %.200s", b)})
			continue
		}
		ev := RealtimeEvent{AtNs: at, Type: e.Type, Segment: e.SegmentID, Final: e.IsFinal, Index: e.EventIndex}
		switch e.Type {
		case "transcription.delta":
			ev.Text = e.Delta
		case "transcription.done", "transcription.segment", "transcription.completed":
			ev.Text = e.Text
		case "error":
			ev.Code, ev.Text = errorEvent(e)
		}
		s.mu.Lock()
		s.rec.Events = append(s.rec.Events, ev)
		if ev.Text != "" && !s.texted && (e.Type == "transcription.delta" || e.Type == "transcription.segment") {
			s.texted = true
			s.req.OnText(at)
		}
		switch {
		case e.Type == "session.created":
			if e.ID != "" {
				s.id = e.ID
			} else if e.Session != nil {
				s.id = e.Session.ID
			}
			s.mu.Unlock()
			open()
			continue
		case e.Type == "error" && s.err == nil && !s.done:
			s.err = &SessionError{Class: ErrSession, Msg: fmt.Sprintf("error event %s: %s", ev.Code, ev.Text)}
			close(s.final)
		case isFinalEvent(s.proto, e.Type) && s.err == nil && !s.done:
			s.done, s.rec.Final = true, ev.Text
			close(s.final)
		}
		s.mu.Unlock()
	}
}

func (s *rtSession) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && !s.done {
		s.err = err
		close(s.final)
	}
}

// isFinalEvent is the protocol's last event of a session.
func isFinalEvent(p engine.StreamEvents, typ string) bool {
	if p == engine.RealtimeSegments {
		return typ == "transcription.completed"
	}
	return typ == "transcription.done"
}

// errorEvent is an error event's code and message: vLLM's {error:
// "<message>", code: "<code>"}, SGLang-Omni's {error: {type, code,
// message}}.
func errorEvent(e rtEvent) (code, msg string) {
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		_ = json.Unmarshal(e.Code, &code)
		return code, s
	}
	var o struct {
		Type, Code, Message string
	}
	if json.Unmarshal(e.Error, &o) == nil {
		return cmp.Or(o.Code, o.Type), o.Message
	}
	return "", strings.TrimSpace(string(e.Error))
}

// spliceRange appends bytes [from, to) of s to dst.
func spliceRange(s perturb.Splice, from, to int64, dst []byte) []byte {
	for _, part := range [3][]byte{s.Head, s.Mid, s.Tail} {
		n := int64(len(part))
		if from < n && to > 0 {
			dst = append(dst, part[max(from, 0):min(to, n)]...)
		}
		from, to = from-n, to-n
	}
	return dst
}
