package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/benchseal/benchseal/internal/task"
)

// itemTask is ASR with an envelope of each item's own: the clip's id
// before the input and its reference after it, as a text-to-speech body
// carries the text to speak.
type itemTask struct{ task.Task }

type itemEnvelopes struct{}

func (itemTask) Envelope(task.Target) (task.Envelopes, error) { return itemEnvelopes{}, nil }

func (itemEnvelopes) For(it task.Item) (task.Envelope, error) {
	return task.Envelope{ContentType: "application/x-item", Prefix: []byte(it.ID + "\n"), Suffix: []byte("\n" + it.Text)}, nil
}

// TestEnvelopePerItem: every request's body is its own item's envelope
// around its variant's bytes, so a task can put per-item members (the
// text to speak) in the body.
func TestEnvelopePerItem(t *testing.T) {
	clips, _ := testCorpus(t, 3, 0.1)
	var mu sync.Mutex
	seen := map[string]string{} // sha256 of the input as received -> the item id around it
	bad := 0
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		id, rest, _ := bytes.Cut(b, []byte("\n"))
		i := bytes.LastIndexByte(rest, '\n')
		mu.Lock()
		defer mu.Unlock()
		if i < 0 || r.Header.Get("Content-Type") != "application/x-item" {
			bad++
			return
		}
		s := sha256.Sum256(rest[:i])
		seen[hex.EncodeToString(s[:])] = string(id)
		json.NewEncoder(w).Encode(map[string]string{"text": string(rest[i+1:])})
	})
	dir, _, err := runPlan(t, Plan{Task: itemTask{task.ASR}, Targets: []Target{{Name: "a", URL: ts.URL, Model: "m"}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{6}, Warmup: []int{0}, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d requests were not an item's envelope", bad)
	}
	l := loadRun(t, dir)
	ref := map[string]string{}
	for _, c := range clips {
		ref[c.ID] = c.Text
	}
	for _, r := range l.recs {
		// The answer echoes the suffix: the item's own reference.
		if seen[r.InputSHA256] != r.Clip || !r.OK || r.TextScored != ref[r.Clip] {
			t.Errorf("seq %d clip %s: sent around %q, ok %v, text %q", r.Seq, r.Clip, seen[r.InputSHA256], r.OK, r.Text)
		}
	}
	if len(l.recs) != 6 {
		t.Errorf("%d records, want 6", len(l.recs))
	}
}
