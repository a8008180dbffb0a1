package roundtrip_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/roundtrip"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// asrServer is a transcription server on loopback that hears every WAV
// as words, and answers HTTP 500 to every third request. It keeps the
// SHA-256 of each WAV's PCM it was sent and its sample rate.
type asrServer struct {
	n     atomic.Int64
	sums  chan string
	rates chan int
}

func (a *asrServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		io.WriteString(w, `{"object":"list","data":[{"id":"hears-all","object":"model"}]}`)
		return
	}
	f, _, err := r.FormFile("file")
	if err != nil || r.FormValue("model") != "hears-all" || r.FormValue("response_format") != "json" {
		http.Error(w, "bad request", 400)
		return
	}
	b, _ := io.ReadAll(f)
	sum := sha256.Sum256(b[44:])
	a.sums <- hex.EncodeToString(sum[:])
	a.rates <- int(b[24]) | int(b[25])<<8 | int(b[26])<<16
	if a.n.Add(1)%3 == 0 {
		http.Error(w, "overloaded", 500)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"text": "hello from the voice"})
}

// TestRoundTripSim runs a tts sweep against the simulator's vllm-omni
// persona (a whole WAV, a raw PCM stream, an SSE stream) with
// a round trip: every measured success and no warm-up is sent, as the
// PCM its record names; a transcription that failed is kept with its
// status and left out of the WER; the claims' WER is the transcripts'.
func TestRoundTripSim(t *testing.T) {
	for _, shape := range []struct {
		name   string
		stream bool
		fields map[string]string
	}{
		{"whole wav", false, nil},
		{"raw pcm stream", true, map[string]string{"stream_format": "audio", "response_format": "pcm"}},
		{"sse wav stream", true, map[string]string{"response_format": "wav"}},
	} {
		stream := shape.name
		srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni, BaseLatency: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		tts := httptest.NewServer(srv)
		defer tts.Close()
		a := &asrServer{sums: make(chan string, 64), rates: make(chan int, 64)}
		asr := httptest.NewServer(a)
		defer asr.Close()
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 3), 0o644)
		os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"id":"a","text":"hello from the voice","ref_audio":"ref.wav"}
{"id":"b","text":"a different sentence","ref_audio":"ref.wav"}
`), 0o644)
		clips, err := task.TTS.LoadCorpus(filepath.Join(dir, "c.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := roundtrip.New(roundtrip.Config{Name: "asr", URL: asr.URL + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		target := bench.Target{Name: "s", URL: tts.URL}
		target.Fields = shape.fields
		run := filepath.Join(dir, "run")
		plan := bench.Plan{Task: task.TTS, Targets: []bench.Target{target}, Corpus: clips, Levels: []int{1, 2},
			Requests: []int{6}, Repeats: 1, Seed: 5, Stream: shape.stream,
			Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}}
		res, err := bench.Run(context.Background(), run, plan, rt.Options(context.Background())...)
		if err != nil {
			t.Fatal(err)
		}
		close(a.sums)
		close(a.rates)
		got := map[string]int{}
		for s := range a.sums {
			got[s]++
		}
		for r := range a.rates {
			if r != sim.SpeechRate {
				t.Errorf("%s: a WAV at %d Hz was sent, want the answer's %d", stream, r, sim.SpeechRate)
			}
		}
		_, recs, tel, err := claims.LoadDirTelemetry(os.DirFS(run))
		if err != nil {
			t.Fatal(err)
		}
		measured := 0
		for _, r := range recs {
			h, heard := tel.Heard[r.RequestID]
			if r.Phase != schemas.PhaseMeasure {
				if heard {
					t.Errorf("warm-up %s was sent", r.RequestID)
				}
				continue
			}
			measured++
			au, _ := task.ParseAudio(r.Text)
			if !r.OK || !heard || h.AudioSHA256 != au.SHA256 || got[au.SHA256] == 0 {
				t.Fatalf("%s: record %s ok %v %s: heard %v %+v; the ASR server got %d of its audio", stream, r.RequestID, r.OK, r.Error, heard, h, got[au.SHA256])
			}
			if h.Status == 500 && (h.Error == "" || h.Text != "") || h.Status != 500 && h.Status != 200 {
				t.Errorf("heard %+v", h)
			}
		}
		var sum schemas.RoundTripASR
		b, _ := os.ReadFile(filepath.Join(run, schemas.RoundTripASRFile))
		json.Unmarshal(b, &sum)
		if measured != 12 || sum.Sent["s"] != 12 || sum.Heard["s"] != 8 || sum.Model != "hears-all" {
			t.Fatalf("%s: %d measured; asr.json %+v: want 12 sent, 8 heard (every third failed)", stream, measured, sum)
		}
		// "hello from the voice" is heard right, "a different sentence"
		// as that: the claims' WER is the heard lines' (wantWER).
		for _, l := range res.Claims.Targets[0].Levels {
			q := l.Repeats[0].Quality
			if q == nil {
				t.Fatalf("%s: c=%d: no round-trip WER", stream, l.Concurrency)
			}
			if w := wantWER(t, recs, tel.Heard, l.Concurrency); *q != w {
				t.Errorf("%s: c=%d WER %v, want %v from the heard lines", stream, l.Concurrency, *q, w)
			}
		}
	}
}

// wantWER scores the heard lines of level c by hand: word errors over
// reference words, of the answers heard.
func wantWER(t *testing.T, recs []schemas.Record, heard map[string]schemas.Heard, c int) float64 {
	refs := map[string]string{"a": "hello from the voice", "b": "a different sentence"}
	errs, words := 0, 0
	for _, r := range recs {
		h, ok := heard[r.RequestID]
		if r.Concurrency != c || r.Phase != schemas.PhaseMeasure || !ok || h.Status != 200 {
			continue
		}
		ref := strings.Fields(refs[r.Clip])
		words += len(ref)
		if r.Clip == "b" {
			errs += 4 // 3 substitutions and an insertion: "hello from the voice" for "a different sentence"
		}
	}
	return float64(errs) / float64(words)
}

// BenchmarkRoundTripIdle measures what keeping the answers costs the
// closed loop: each round runs the same tts sweep (C=16, whole WAVs
// from the simulator's vllm-omni persona) without and with a round
// trip, in alternating order, and reports the workers' idle share of
// each (the gaps between a worker's requests over its span) and their
// difference in percentage points. The round trip must stay within 0.5
// points of the run without it.
func BenchmarkRoundTripIdle(b *testing.B) {
	srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni, BaseLatency: 40 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	tts := httptest.NewServer(srv)
	defer tts.Close()
	a := &asrServer{sums: make(chan string, 1<<16), rates: make(chan int, 1<<16)}
	asr := httptest.NewServer(a)
	defer asr.Close()
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1.5, 3), 0o644)
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"id":"a","text":"hello from the voice, a sentence long enough to make seconds of audio","ref_audio":"ref.wav"}
{"id":"b","text":"a different sentence, also long enough to be a few seconds of speech","ref_audio":"ref.wav"}
`), 0o644)
	clips, err := task.TTS.LoadCorpus(filepath.Join(dir, "c.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	sweep := func(i int, with bool) float64 {
		run := filepath.Join(dir, fmt.Sprintf("run%d-%v", i, with))
		plan := bench.Plan{Task: task.TTS, Targets: []bench.Target{{Name: "s", URL: tts.URL}}, Corpus: clips, Levels: []int{16},
			Requests: []int{320}, Repeats: 1, Seed: uint64(i),
			Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}}
		var opts []bench.Option
		if with {
			rt, err := roundtrip.New(roundtrip.Config{Name: "asr", URL: asr.URL + "/v1"})
			if err != nil {
				b.Fatal(err)
			}
			opts = rt.Options(context.Background())
		}
		if _, err := bench.Run(context.Background(), run, plan, opts...); err != nil {
			b.Fatal(err)
		}
		_, recs, err := claims.LoadDir(os.DirFS(run))
		if err != nil {
			b.Fatal(err)
		}
		return idleShare(recs)
	}
	var without, with float64
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			without += sweep(i, false)
			with += sweep(i, true)
		} else {
			with += sweep(i, true)
			without += sweep(i, false)
		}
	}
	n := float64(b.N)
	b.ReportMetric(100*without/n, "%idle-without")
	b.ReportMetric(100*with/n, "%idle-with")
	b.ReportMetric(100*(with-without)/n, "pp-added")
}

// idleShare is the measured requests' worker idle share: each worker's
// gaps between one request's end and its next one's start, over the
// worker's span from its first start to its last end.
func idleShare(recs []schemas.Record) float64 {
	type span struct{ first, last, end, gaps int64 }
	ws := map[int]*span{}
	slices.SortFunc(recs, func(a, b schemas.Record) int { return cmp.Compare(a.StartNs, b.StartNs) })
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		w := ws[r.Worker]
		if w == nil {
			ws[r.Worker] = &span{first: r.StartNs, end: r.EndNs}
			continue
		}
		w.gaps += max(0, r.StartNs-w.end)
		w.end = r.EndNs
	}
	var gaps, spans int64
	for _, w := range ws {
		gaps += w.gaps
		spans += w.end - w.first
	}
	return float64(gaps) / float64(spans)
}

// lineWriter keeps what progress writes and closes seen once a line
// matches want.
type lineWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	want *regexp.Regexp
	seen chan struct{}
	once sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.want.Match(p) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestRoundTripProgress: hearing the answers after the sweep says how it
// goes on Progress (issue 36: 2-3 minutes without a line): a line as it
// starts, heartbeats of sent/total, heard, failed, the rate and the time
// left while a transcription is still out, and a last line. The ASR server
// holds the 6th transcription until a heartbeat with a rate was printed,
// so the test waits on the line, not on a clock.
func TestRoundTripProgress(t *testing.T) {
	srv, err := sim.New(sim.Config{Persona: sim.PersonaVLLMOmni, BaseLatency: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	tts := httptest.NewServer(srv)
	defer tts.Close()
	w := &lineWriter{want: regexp.MustCompile(`^benchseal: round trip: [1-5]/12 sent, \d+ heard, (\d+ failed, )?\d+\.\d/s, ~\S+ left\n$`), seen: make(chan struct{})}
	a := &asrServer{sums: make(chan string, 64), rates: make(chan int, 64)}
	var posts atomic.Int64
	asr := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && posts.Add(1) == 6 {
			select { // a hearing without heartbeats fails below instead of hanging
			case <-w.seen:
			case <-time.After(30 * time.Second):
			}
		}
		a.ServeHTTP(rw, r)
	}))
	defer asr.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ref.wav"), testkit.NoiseWAV(1, 3), 0o644)
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"id":"a","text":"hello from the voice","ref_audio":"ref.wav"}
`), 0o644)
	clips, err := task.TTS.LoadCorpus(filepath.Join(dir, "c.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := roundtrip.New(roundtrip.Config{Name: "asr", URL: asr.URL, Progress: w, Heartbeat: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	plan := bench.Plan{Task: task.TTS, Targets: []bench.Target{{Name: "s", URL: tts.URL}}, Corpus: clips, Levels: []int{1, 2},
		Requests: []int{6}, Repeats: 1, Seed: 5,
		Scoring: schemas.Scoring{Normalizer: "basic", Aligner: "unit", Unit: "word", Failures: "excluded"}}
	if _, err := bench.Run(context.Background(), filepath.Join(dir, "run"), plan, rt.Options(context.Background())...); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	out := w.buf.String()
	w.mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "benchseal: round trip: hearing 12 answers through asr (hears-all), 4 at a time" {
		t.Errorf("first line %q", lines[0])
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "benchseal: round trip: 12/12 sent, 8 heard, 4 failed in ") {
		t.Errorf("last line %q", last)
	}
	select {
	case <-w.seen:
	default:
		t.Errorf("no heartbeat with a rate and a time left:\n%s", out)
	}
}
