package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
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
		if seen[r.InputSHA256] != r.Clip || !r.OK || r.Scored != ref[r.Clip] {
			t.Errorf("seq %d clip %s: sent around %q, ok %v, text %q", r.Seq, r.Clip, seen[r.InputSHA256], r.OK, r.Text)
		}
	}
	if len(l.recs) != 6 {
		t.Errorf("%d records, want 6", len(l.recs))
	}
}

// dataURLTask is ASR with the clip sent as the base64 `data:` URL of a
// JSON body, as a voice-cloning request sends its reference clip.
type dataURLTask struct{ task.Task }

func (dataURLTask) Envelope(task.Target) (task.Envelopes, error) {
	return task.Shared{ContentType: "application/json", Prefix: []byte(`{"audio":"data:audio/wav;base64,`), Suffix: []byte(`"}`)}, nil
}

func (dataURLTask) Input(name string, b []byte) (task.Input, error) { return task.WAVBase64(name, b) }

// TestBase64Input: every request's data URL decodes to the WAV whose
// SHA-256 its record names, variants and the cache probe's unchanged
// repeats alike: the base64 splice is the variant, sent whole.
func TestBase64Input(t *testing.T) {
	clips, _ := testCorpus(t, 2, 0.1)
	var mu sync.Mutex
	got := map[string]int{} // sha256 of each WAV the server decoded
	bad := 0
	ts := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		var in struct{ Audio string }
		err := json.NewDecoder(r.Body).Decode(&in)
		b64, ok := strings.CutPrefix(in.Audio, "data:audio/wav;base64,")
		wav, err2 := base64.StdEncoding.DecodeString(b64)
		mu.Lock()
		defer mu.Unlock()
		if err != nil || !ok || err2 != nil {
			bad++
			w.WriteHeader(400)
			return
		}
		s := sha256.Sum256(wav)
		got[hex.EncodeToString(s[:])]++
		io.WriteString(w, `{"text":"hello"}`)
	})
	dir, _, err := runPlan(t, Plan{Task: dataURLTask{task.ASR}, Targets: []Target{{Name: "a", URL: ts.URL, Model: "m"}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{4}, Repeats: 1, CacheProbe: 2})
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	repeats := 0
	for _, r := range l.recs {
		if !r.OK || got[r.InputSHA256] == 0 {
			t.Errorf("%s seq %d: ok %v, the server decoded no WAV of sha256 %s", r.Phase, r.Seq, r.OK, r.InputSHA256)
		}
		if r.SampleIndex < 0 {
			repeats++
		}
	}
	if bad > 0 || repeats == 0 || len(l.recs) < 6 {
		t.Errorf("%d bodies not a data URL, %d unchanged repeats, %d records", bad, repeats, len(l.recs))
	}
}
