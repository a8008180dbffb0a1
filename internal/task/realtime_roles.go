package task

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/verdict"
	"github.com/benchseal/benchseal/schemas"
)

// realtimeWords are the report's words for a realtime run: sessions
// that stream clips and are recognised as they come.
var realtimeWords = Words{
	Title:       Phrase{"en": "Realtime speech recognition benchmark", "zh": "实时语音识别基准测试"},
	Input:       Phrase{"en": "clip", "zh": "音频片段"},
	Inputs:      Phrase{"en": "clips", "zh": "音频片段"},
	Item:        Phrase{"en": "a clip", "zh": "同一音频片段"},
	Fresh:       Phrase{"en": "audio", "zh": "音频"},
	Output:      Phrase{"en": "session timeline (each chunk's send time, each server event with its receive time, the final text)", "zh": "会话时间线（每个音频块的发送时间、每个服务器事件及其接收时间、最终文本）"},
	Done:        Phrase{"en": "recognised", "zh": "识别"},
	Work:        Phrase{"en": "recognising new audio as it streams", "zh": "边流式传输边识别新音频"},
	Cached:      Phrase{"en": "identical audio", "zh": "相同音频"},
	Noun:        Phrase{"en": "realtime recognition", "zh": "实时识别"},
	RTFxHeading: Phrase{"en": "Real-time factor", "zh": "实时率（RTFx）"},
	Success:     Phrase{"en": "success is a session that ended with its protocol's final event and a non-empty final text. ", "zh": "成功的标准是会话以其协议的最终事件结束且最终文本非空。"},
	Unshown: Phrase{"en": "how the server paced its own decoding: the records keep when each chunk was sent and each event arrived, not what the server did in between.",
		"zh": "服务器如何安排自身的解码节奏：记录保存每个音频块的发送时间和每个事件的到达时间，不含服务器在其间做了什么。"},
}

// Words are realtime's (realtimeWords).
func (realtime) Words() Words { return realtimeWords }

// The names of realtime's figures in claims.json.
const (
	FigFirstPartialP50 = "first_partial_p50_s"
	FigFirstPartialP99 = "first_partial_p99_s"
	FigFinalLagP50     = "final_lag_p50_s"
	FigFinalLagP99     = "final_lag_p99_s"
	FigRevisions       = "revisions_mean"
	FigStreamRTFP50    = "stream_rtf_p50"
	FigChunkLateP99    = "chunk_late_p99_s"
)

var realtimeFigures = []FigureSpec{
	{FigFirstPartialP50, "s", Phrase{"en": "first partial p50", "zh": "首个部分结果 p50"}},
	{FigFirstPartialP99, "s", Phrase{"en": "first partial p99", "zh": "首个部分结果 p99"}},
	{FigFinalLagP50, "s", Phrase{"en": "final lag p50", "zh": "最终结果延迟 p50"}},
	{FigFinalLagP99, "s", Phrase{"en": "final lag p99", "zh": "最终结果延迟 p99"}},
	{FigRevisions, "x", Phrase{"en": "revisions", "zh": "修订次数"}},
	{FigStreamRTFP50, "x", Phrase{"en": "stream RTF p50", "zh": "流 RTF p50"}},
	{FigChunkLateP99, "s", Phrase{"en": "chunk lateness p99", "zh": "音频块延迟 p99"}},
}

// Figures, over a level and repeat's measured sessions: time to first
// partial (the first event with text, less the first chunk's send time)
// p50 and p99 of the sessions that had one; finalisation lag (the final
// event, less the end of audio's send time) p50 and p99 of the successes;
// revisions, the mean count a success's partial results replaced text
// already shown (SGLang-Omni's segment hypotheses that are not the one
// before extended; vLLM's deltas only append); the stream's real-time factor (final event less first
// chunk, over the clip's seconds: 1 ÷ speed at best) p50 of the
// successes; and chunk lateness (each chunk's send time less its planned
// time) p99 over every chunk sent. Percentiles are exact
// (verdict.Percentile).
func (realtime) Figures() []FigureSpec { return realtimeFigures }

// Chart draws the two latencies a realtime user feels, both p50s: time
// to first partial (solid) and finalisation lag (dashed).
func (realtime) Chart() *FigureChart {
	return &FigureChart{
		Title: Phrase{"en": "Time to first partial p50 (solid) and finalisation lag p50 (dashed) vs concurrency", "zh": "首个部分结果时间 p50（实线）与最终结果延迟 p50（虚线）随并发数变化"},
		Axis:  Phrase{"en": "seconds", "zh": "秒"},
		P50:   FigFirstPartialP50, P99: FigFinalLagP50,
	}
}

func (realtime) Section() Phrase { return Phrase{"en": "Realtime sessions", "zh": "实时会话"} }

func (realtime) Caption() Phrase {
	return Phrase{"en": "Medians over %s. First partial: first chunk sent to the first event with text. Final lag: end of audio sent to the final event. Revisions: partial results that replaced text already shown, per success. Stream RTF: first chunk to final event over the clip's seconds. Chunk lateness: a chunk's send time after its planned one.",
		"zh": "%s 的中位数。首个部分结果：从发送第一个音频块到第一个带文本的事件。最终结果延迟：从发送音频结束到最终事件。修订次数：每个成功会话中替换已显示文本的部分结果数。流 RTF：从第一个音频块到最终事件的时间除以片段秒数。音频块延迟：音频块实际发送时间晚于计划时间的量。"}
}

// Accumulate is a repeat's realtime figures.
func (realtime) Accumulate(run schemas.Run) Accumulator {
	rule := DefaultRealtimeRule
	if run.Protocol.Realtime != nil {
		rule = *run.Protocol.Realtime
	}
	return &realtimeAcc{rule: rule}
}

// DefaultRealtimeRule is the rule of a realtime run.json without one
// (none is sealed without it: verify says so).
var DefaultRealtimeRule = schemas.Realtime{ChunkMs: DefaultChunkMs, Speed: 1, LateMs: DefaultLateMs}

type realtimeAcc struct {
	rule                  schemas.Realtime
	first, lag, rtf, late []float64
	revisions, successes  int
}

func (a *realtimeAcc) Add(r *schemas.Record) {
	if r.Phase != schemas.PhaseMeasure {
		return
	}
	s, err := ParseRealtimeSession(r.Text)
	if err != nil {
		return
	}
	for k, at := range s.ChunksNs {
		a.late = append(a.late, float64(at-s.PlannedNs-PlannedOffset(a.rule, k))/1e9)
	}
	if len(s.ChunksNs) == 0 {
		return
	}
	start := s.ChunksNs[0]
	if at, ok := s.firstText(); ok {
		a.first = append(a.first, float64(at-start)/1e9)
	}
	if !r.OK {
		return
	}
	fin, ok := s.finalEvent()
	if !ok {
		return
	}
	a.successes++
	a.revisions += s.revisions()
	if s.AudioEndNs > 0 {
		a.lag = append(a.lag, float64(fin.AtNs-s.AudioEndNs)/1e9)
	}
	if r.Seconds > 0 {
		a.rtf = append(a.rtf, float64(fin.AtNs-start)/1e9/r.Seconds)
	}
}

func (a *realtimeAcc) Close() []Figure {
	out := make([]Figure, len(realtimeFigures))
	for i, s := range realtimeFigures {
		out[i] = Figure{Name: s.Name, Unit: s.Unit}
	}
	pct := func(v []float64, p float64) *float64 {
		if len(v) == 0 {
			return nil
		}
		slices.Sort(v)
		x := verdict.Percentile(v, p)
		return &x
	}
	out[0].Value, out[1].Value = pct(a.first, 50), pct(a.first, 99)
	out[2].Value, out[3].Value = pct(a.lag, 50), pct(a.lag, 99)
	if a.successes > 0 {
		x := float64(a.revisions) / float64(a.successes)
		out[4].Value = &x
	}
	out[5].Value = pct(a.rtf, 50)
	out[6].Value = pct(a.late, 99)
	return out
}

// firstText is the receive time of the session's first event with text
// (a delta or a segment).
func (s *RealtimeSession) firstText() (int64, bool) {
	for _, e := range s.Events {
		if e.Text != "" && (e.Type == evDelta || e.Type == evSegment) {
			return e.AtNs, true
		}
	}
	return 0, false
}

// finalEvent is the session's final event (its protocol's), if it came.
func (s *RealtimeSession) finalEvent() (RealtimeEvent, bool) {
	p, _ := realtimeProtocol(s.Protocol)
	for _, e := range s.Events {
		if isFinalEvent(p, e.Type) {
			return e, true
		}
	}
	return RealtimeEvent{}, false
}

// revisions counts the partial results that replaced a segment's text
// already shown: an SGLang-Omni segment event (each carries the
// segment's whole hypothesis, transcription_session.py@0c940be4) whose
// text is not the text before it extended. vLLM's deltas only append.
func (s *RealtimeSession) revisions() int {
	n := 0
	shown := map[int]string{}
	for _, e := range s.Events {
		if e.Type != evSegment || e.Segment == nil {
			continue
		}
		if prev, ok := shown[*e.Segment]; ok && !strings.HasPrefix(e.Text, prev) {
			n++
		}
		shown[*e.Segment] = e.Text
	}
	return n
}

// The server events the figures and checks read.
const (
	evCreated   = "session.created"
	evDelta     = "transcription.delta"
	evDone      = "transcription.done"
	evSegment   = "transcription.segment"
	evCompleted = "transcription.completed"
	evError     = "error"
)

// CheckRecords holds every realtime record's session to the protocol and
// to run.json's streaming rule: the chunking (each chunk ChunkBytes of
// the rule, as many as the clip's samples fill), the pacing (no chunk
// sent more than LateMs after its planned time, planned derived again
// from the rule), the stream (its SHA-256 is the variant's, input_sha256,
// when every chunk was sent), the events' order (times in order within
// the record's span; the protocol's first event first, its final event
// last and once, SGLang-Omni's event_index counting up by one), the final
// text (the final event's) and the first byte (the first event with
// text).
func (realtime) CheckRecords(run schemas.Run, recs []RecordAt) []Problem {
	rule := DefaultRealtimeRule
	if run.Protocol.Realtime != nil {
		rule = *run.Protocol.Realtime
	}
	clips := map[string]schemas.Clip{}
	for _, c := range run.Corpus {
		clips[c.ID] = c
	}
	var out []Problem
	for _, r := range recs {
		s, err := ParseRealtimeSession(r.Text)
		if err != nil {
			if r.OK {
				out = append(out, Problem{r.File, r.Line, "a success whose text is not a realtime session: " + err.Error()})
			}
			continue
		}
		for _, why := range checkSession(rule, clips[r.Clip], r.Record, s) {
			out = append(out, Problem{r.File, r.Line, why})
		}
	}
	return out
}

// checkSession is CheckRecords of one record.
func checkSession(rule schemas.Realtime, c schemas.Clip, r *schemas.Record, s *RealtimeSession) []string {
	var out []string
	bad := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	p, err := realtimeProtocol(s.Protocol)
	if err != nil {
		return []string{err.Error()}
	}
	cb := ChunkBytes(rule.ChunkMs, max(c.SampleRate, 1))
	dataBytes := c.Frames * int64(c.Channels) * 2
	want := int((dataBytes + int64(cb) - 1) / int64(cb))
	if s.ChunkBytes != cb {
		bad("chunks of %d bytes, and the rule's %d ms at %d Hz are %d bytes", s.ChunkBytes, rule.ChunkMs, c.SampleRate, cb)
	}
	if len(s.ChunksNs) > want {
		bad("%d chunks sent, and the clip's %d bytes of samples fill %d", len(s.ChunksNs), dataBytes, want)
	}
	if r.OK && len(s.ChunksNs) != want {
		bad("a success that sent %d of its clip's %d chunks", len(s.ChunksNs), want)
	}
	for k, at := range s.ChunksNs {
		if early := s.PlannedNs + PlannedOffset(rule, k) - at; early > int64(1e6) {
			bad("chunk %d sent %.1f ms before its planned time: the stream ran ahead of %g× real time", k, float64(early)/1e6, rule.Speed)
			break
		}
	}
	// A late chunk makes the session a late_stream failure (the runner's
	// own rule); a success with one was not paced as run.json says.
	switch k, late := LateChunk(rule, s); {
	case late > 0 && r.OK:
		bad("chunk %d sent %.1f ms after its planned time, beyond the %g ms bound, yet the session is a success: the stream was not paced at %g× real time",
			k, float64(late)/1e6, rule.LateMs, rule.Speed)
	case late == 0 && r.ErrorClass == ErrLateStream:
		bad("a %s failure whose chunks were all sent within %g ms of their planned times", ErrLateStream, rule.LateMs)
	}
	if len(s.ChunksNs) == want && want > 0 && s.StreamSHA256 != r.InputSHA256 {
		bad("the bytes streamed hash to %.12s…, not to the variant's %.12s…", s.StreamSHA256, r.InputSHA256)
	}
	if len(s.ChunksNs) > 0 && (s.PlannedNs < r.StartNs || s.ChunksNs[0] < s.PlannedNs) {
		bad("the stream's planned start or first chunk is before the session's start")
	}
	out = append(out, checkEvents(p, r, s)...)
	return out
}

// checkEvents is the events' order, the final text and the first byte.
func checkEvents(p engine.StreamEvents, r *schemas.Record, s *RealtimeSession) []string {
	var out []string
	bad := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	finals, finalAt := 0, -1
	var prev int64
	for i, e := range s.Events {
		if e.AtNs < prev || e.AtNs < r.StartNs || (r.EndNs > 0 && e.AtNs > r.EndNs) {
			bad("event %d (%s) at %d ns is out of order or outside the session's span", i, e.Type, e.AtNs)
			break
		}
		prev = e.AtNs
		if isFinalEvent(p, e.Type) {
			finals++
			finalAt = i
		}
	}
	if len(s.Events) > 0 && s.Events[0].Type != evCreated {
		bad("the first event is %s, not %s", s.Events[0].Type, evCreated)
	}
	if p == engine.RealtimeSegments {
		// send() numbers every event from 1, session.created's
		// (transcription_session.py@0c940be4).
		for i, e := range s.Events {
			if e.Index == nil || *e.Index != int64(i)+1 {
				bad("event %d (%s) breaks the event_index sequence (1, 2, …)", i, e.Type)
				break
			}
		}
	}
	if finals > 1 {
		bad("%d final events", finals)
	}
	if finalAt >= 0 {
		for _, e := range s.Events[finalAt+1:] {
			if e.Type == evDelta || e.Type == evSegment {
				bad("a %s after the final event", e.Type)
				break
			}
		}
		if fin := s.Events[finalAt]; fin.Text != s.Final {
			bad("the final text %q is not the final event's %q", clip(s.Final), clip(fin.Text))
		}
		if r.OK && r.EndNs < s.Events[finalAt].AtNs {
			bad("the session ended before its final event")
		}
	}
	if r.OK && finals == 0 {
		bad("a success without its final event (%s)", finalName(p))
	}
	if finalAt >= 0 {
		if parts, want := partsText(p, s.Events[:finalAt]), s.Events[finalAt].Text; parts != want {
			bad("the %s say %q and the final event %q", partsName(p), clip(parts), clip(want))
		}
	}
	if at, ok := s.firstText(); ok && r.FirstByteNs != at {
		bad("first_byte_ns %d is not the first event with text's %d", r.FirstByteNs, at)
	}
	return out
}

// partsText is the final text the events before the final one make:
// vLLM's deltas joined as they are (full_text += delta,
// connection.py@055e47c2); SGLang-Omni's final segments in segment_id
// order, each stripped, empty ones skipped, joined by a space except
// between two characters of unspaced scripts (join_transcript_parts,
// sglang_omni/serve/transcription_chunking.py@0f617aae).
func partsText(p engine.StreamEvents, evs []RealtimeEvent) string {
	var b strings.Builder
	if p == engine.RealtimeDeltas {
		for _, e := range evs {
			if e.Type == evDelta {
				b.WriteString(e.Text)
			}
		}
		return b.String()
	}
	finals := map[int]string{}
	var ids []int
	for _, e := range evs {
		if e.Type == evSegment && e.Final && e.Segment != nil {
			if _, ok := finals[*e.Segment]; !ok {
				ids = append(ids, *e.Segment)
			}
			finals[*e.Segment] = e.Text
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		part := strings.TrimSpace(finals[id])
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			last, _ := utf8.DecodeLastRuneInString(b.String())
			first, _ := utf8.DecodeRuneInString(part)
			if !unspaced(last) || !unspaced(first) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(part)
	}
	return b.String()
}

// unspaced: a character of a script written without spaces between
// words (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar).
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

func partsName(p engine.StreamEvents) string {
	if p == engine.RealtimeSegments {
		return "final segments"
	}
	return "deltas"
}

func finalName(p engine.StreamEvents) string {
	if p == engine.RealtimeSegments {
		return evCompleted
	}
	return evDone
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ConnectionFamily is vLLM's counter of accepted WebSockets
// (engine.VLLMWebSocketTotal); SGLang-Omni counts none (not observed).
func (realtime) ConnectionFamily() string { return engine.VLLMWebSocketTotal }

// Opened: the server accepted the session's connection (it sent an event:
// session.created comes first on both engines).
func (realtime) Opened(r *schemas.Record) bool {
	s, err := ParseRealtimeSession(r.Text)
	return err == nil && len(s.Events) > 0
}
