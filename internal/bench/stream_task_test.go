package bench

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/task"
)

// pcmTask is ASR whose streamed answer is raw audio/pcm, as a speech
// server streams what it speaks: its first output is its first bytes, and
// RTF counts the output's seconds (16 kHz 16-bit mono), not the input's.
type pcmTask struct{ task.Task }

func (pcmTask) IsStream(ct string) bool { return ct == "audio/pcm" }

func (pcmTask) DecodeStream(br *bufio.Reader, onText func()) (string, string, error) {
	if _, err := br.Peek(1); err != nil {
		return "", "", err
	}
	onText()
	n, err := io.Copy(io.Discard, br)
	return fmt.Sprintf("pcm %d", n), "", err
}

func (pcmTask) Score(text string) (string, string, string) { return text, "", "" }

func (pcmTask) RecordSeconds(_ float64, output string) float64 {
	var n int64
	fmt.Sscanf(output, "pcm %d", &n)
	return float64(n) / 32000
}

// TestRawStreamFirstOutput: a raw PCM stream has a first-output time (its
// first bytes, after its headers and well before its end), and the seconds RTF counts are the
// output's when the task says so.
func TestRawStreamFirstOutput(t *testing.T) {
	clips, _ := testCorpus(t, 1, 0.1)
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "audio/pcm")
		w.WriteHeader(200)
		w.(http.Flusher).Flush() // the headers alone: not yet an output
		time.Sleep(60 * time.Millisecond)
		w.Write(make([]byte, 16000))
		w.(http.Flusher).Flush()
		time.Sleep(60 * time.Millisecond)
		w.Write(make([]byte, 16000))
	})
	dir, _, err := runPlan(t, Plan{Task: pcmTask{task.ASR}, Targets: []Target{{Name: "a", URL: ts.URL, Model: "m"}}, Corpus: clips,
		Levels: []int{1}, Requests: []int{2}, Warmup: []int{0}, Repeats: 1, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	for _, r := range l.recs {
		if !r.OK || r.Text != "pcm 32000" || r.Seconds != 1 {
			t.Errorf("seq %d: ok %v text %q audio_seconds %v, want the output's 1 s", r.Seq, r.OK, r.Text, r.Seconds)
		}
		if !(r.FirstByteNs-r.StartNs > int64(40*time.Millisecond) && r.EndNs-r.FirstByteNs > int64(40*time.Millisecond)) {
			t.Errorf("seq %d: start %d first output %d end %d", r.Seq, r.StartNs, r.FirstByteNs, r.EndNs)
		}
	}
}
