package bench

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// A stream whose only text is in its final event (OpenAI's
// transcript.text.done, after an empty delta) still has a first byte: the
// arrival of that event, not of the headers or the empty delta. Without it
// the request would be left out of ttfb_p50 while counted as a success.
func TestStreamTextOnlyInFinalEvent(t *testing.T) {
	// gap before the text event, tail before [DONE]: the first is a lower
	// bound no client can beat; the second only separates the text
	// event's arrival from the end when the client reads the event in
	// time, which a starved client need not (tail is long for that).
	const gap, tail = 30 * time.Millisecond, 100 * time.Millisecond
	clips, _ := testCorpus(t, 1, 0.1)
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		fmt.Fprint(w, "data: {\"type\":\"transcript.text.delta\",\"delta\":\"\"}\n\n")
		f.Flush()
		time.Sleep(gap)
		fmt.Fprintf(w, "data: {\"type\":\"transcript.text.done\",\"text\":%q}\n\n", refs[0])
		f.Flush()
		time.Sleep(tail)
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL, Model: "m"}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{4}, Warmup: []int{0}, Repeats: 1, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if len(l.recs) != 4 {
		t.Fatalf("%d records, want 4", len(l.recs))
	}
	var widest int64 // the longest span from first text to end
	for _, r := range l.recs {
		if !r.OK || r.Text != refs[0] {
			t.Errorf("seq %d: ok %v text %q error %q", r.Seq, r.OK, r.Text, r.Error)
		}
		// What holds however the client is scheduled: the text event
		// cannot be read before it is written, gap after the start, nor
		// after the end.
		if r.FirstByteNs-r.StartNs < int64(gap) || r.FirstByteNs > r.EndNs {
			t.Errorf("seq %d: start %d first text %d end %d: first_byte_ns is not the final event's arrival", r.Seq, r.StartNs, r.FirstByteNs, r.EndNs)
		}
		widest = max(widest, r.EndNs-r.FirstByteNs)
	}
	// A client that stamped [DONE] or the end as the first text would show
	// no span at all in every record; one that reads the text event late
	// (starved, under -race on a loaded machine: 29.75 of a 30 ms span was
	// seen) shortens some spans, not all four by over half of tail.
	if widest < int64(tail)/2 {
		t.Errorf("first text to end is at most %v in every record, want one over %v: first_byte_ns is not the final event's arrival", time.Duration(widest), tail/2)
	}
	if got := l.claims.Targets[0].Levels[0].Median.TTFBP50S; got == nil || *got < gap.Seconds() {
		t.Errorf("ttfb_p50_s = %v, want at least %v", got, gap.Seconds())
	}
}

// responseText follows the body, not the request: vLLM's JSON answer to
// response_format=text yields its "text" with the json_body note, a plain
// body stays whole, and a json request needs JSON.
func TestResponseText(t *testing.T) {
	for _, tc := range []struct {
		format, ct, body string
		text, note       string
		err              bool
	}{
		{"text", "application/json", `{"text":"hi there","usage":{"type":"duration","seconds":1}}`, "hi there", schemas.NoteJSONBody, false},
		{"text", "", `{"text":"no label"}`, "no label", schemas.NoteJSONBody, false},
		{"text", "text/plain; charset=utf-8", "hi there", "hi there", "", false},
		{"text", "text/plain", "{not json} at all", "{not json} at all", "", false},
		{"text", "application/json", `{"transcript":"x"}`, "", "", true},
		{"json", "application/json", `{"text":"hi"}`, "hi", "", false},
		{"", "application/json; charset=utf-8", `{"text":"hi"}`, "hi", "", false},
		{"json", "text/plain", "hi", "", "", true},
		{"srt", "application/json", `{"text":"1\n00:00 --> 00:01\nhi"}`, "1\n00:00 --> 00:01\nhi", schemas.NoteJSONBody, false},
	} {
		text, note, err := responseText(tc.format, tc.ct, []byte(tc.body))
		if text != tc.text || note != tc.note || (err != nil) != tc.err {
			t.Errorf("%s %q %q: got %q %q %v", tc.format, tc.ct, tc.body, text, note, err)
		}
	}
}

// readSSE fails what a real client must fail: error events of both
// engines (and vLLM's older flat one), [DONE] without a final event, and
// an end without [DONE].
func TestReadSSE(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		text, id     string
		class        string
	}{
		{"vllm ok", `data: {"id":"transcribe-x","object":"transcription.chunk","choices":[{"delta":{"content":"hi "}}]}` + "\n\n" +
			`data: {"id":"transcribe-x","choices":[{"delta":{"content":""},"finish_reason":"stop"}]}` + "\n\n" +
			`data: {"id":"transcribe-x","choices":[],"usage":{"prompt_tokens":3}}` + "\n\ndata: [DONE]\n\n", "hi ", "transcribe-x", ""},
		{"sglang-omni ok", `data: {"type":"transcript.text.delta","delta":"h"}` + "\n\n" + `data: {"type":"transcript.text.done","text":"hi"}` + "\n\ndata: [DONE]\n\n", "hi", "", ""},
		{"vllm error", `data: {"choices":[{"delta":{"content":"hi "}}]}` + "\n\n" + `data: {"error":{"message":"boom","type":"InternalServerError","param":null,"code":500}}` + "\n\ndata: [DONE]\n\n", "hi ", "", schemas.ErrStreamError},
		{"vllm old error", `data: {"object":"error","message":"boom","type":"x","code":500}` + "\n\ndata: [DONE]\n\n", "", "", schemas.ErrStreamError},
		{"sglang-omni error", `data: {"type":"transcript.text.delta","delta":"h"}` + "\n\n" + `data: {"type":"error","error":{"message":"boom"}}` + "\n\n", "h", "", schemas.ErrStreamError},
		{"no final event", `data: {"choices":[{"delta":{"content":"hi "}}]}` + "\n\ndata: [DONE]\n\n", "hi ", "", schemas.ErrStreamTruncated},
		{"no done", `data: {"type":"transcript.text.delta","delta":"h"}` + "\n\n" + `data: {"type":"transcript.text.done","text":"hi"}` + "\n\n", "hi", "", schemas.ErrStreamTruncated},
		{"cut", `data: {"type":"transcript.text.delta","delta":"h"}` + "\n\n", "h", "", schemas.ErrStreamTruncated},
	} {
		text, id, err := readSSE(bufio.NewReader(strings.NewReader(tc.stream)), func() {})
		class := ""
		var se *StreamError
		if errors.As(err, &se) {
			class = se.Class
		} else if err != nil {
			class = "other: " + err.Error()
		}
		if text != tc.text || id != tc.id || class != tc.class {
			t.Errorf("%s: text %q id %q class %q, want %q %q %q", tc.name, text, id, class, tc.text, tc.id, tc.class)
		}
		if class == schemas.ErrStreamError && !strings.Contains(err.Error(), "boom") {
			t.Errorf("%s: error %q lost the server's message", tc.name, err)
		}
	}
}
