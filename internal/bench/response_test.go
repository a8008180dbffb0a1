package bench

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// A stream whose only text is in its final event (OpenAI's
// transcript.text.done, after an empty delta) still has a first byte: the
// arrival of that event, not of the headers or the empty delta. Without it
// the request would be left out of ttfb_p50 while counted as a success.
func TestStreamTextOnlyInFinalEvent(t *testing.T) {
	const gap = 30 * time.Millisecond
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
		time.Sleep(gap)
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
	for _, r := range l.recs {
		if !r.OK || r.Text != refs[0] {
			t.Errorf("seq %d: ok %v text %q error %q", r.Seq, r.OK, r.Text, r.Error)
		}
		// The sleeps only lengthen: the text event comes at least gap after
		// the start, and the end at least gap after it.
		if r.FirstByteNs-r.StartNs < int64(gap) || r.EndNs-r.FirstByteNs < int64(gap) {
			t.Errorf("seq %d: start %d first text %d end %d: first_byte_ns is not the final event's arrival", r.Seq, r.StartNs, r.FirstByteNs, r.EndNs)
		}
	}
	if got := l.claims.Targets[0].Levels[0].Median.TTFBP50S; got < gap.Seconds() {
		t.Errorf("ttfb_p50_s = %v, want at least %v", got, gap.Seconds())
	}
}
