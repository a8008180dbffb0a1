package bench

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// TestThroughputMatchesLittlesLaw: against a server that takes 50 ms per
// request and admits everyone, a closed loop of C workers does C/0.05 req/s
// (within 10%). The bound is on the claims' own window, measured from the
// records. Two things can miss it: the client losing time between one
// response and its next request (ours: Little's law with the records' own
// mean latency, checked always), and the machine stretching the 50 ms
// itself, which no client can make up: at load average ~14 on two cores
// the records' mean latency was 54.4 ms at c=4, already 8% of the ideal
// rate gone before the client lost its 2.6%. So the ideal rate is checked
// only where the mean latency kept within 2% of 50 ms, leaving 8% of the
// margin to the client, and the log line says when it was not.
func TestThroughputMatchesLittlesLaw(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test: run without -race and -short")
	}
	clips, sc := testCorpus(t, 3, 0.2)
	ts := simServer(t, sim.Config{Corpus: sc, BaseLatency: 50 * time.Millisecond})
	levels := []int{1, 4, 16, 64}
	var reqs []int
	for _, c := range levels {
		reqs = append(reqs, c*24)
	}
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: levels, Requests: reqs, Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	for i, c := range levels {
		m := l.claims.Targets[0].Levels[i].Median
		want := float64(c) / 0.05
		if m.LatencyMeanS == nil {
			t.Fatalf("c=%d: no successful request", c)
		}
		// The in-process server shares two cores with everything else on
		// the machine: when its requests took over 51 ms on average, the
		// machine, not the client, spent the ideal rate's margin.
		ideal := "checked"
		if *m.LatencyMeanS > 0.051 {
			ideal = "not checked: mean latency over 51ms, a busy machine"
		} else if math.Abs(m.ReqPerS-want)/want > 0.10 {
			t.Errorf("c=%d: %.1f req/s, want %.1f within 10%% (window %.3fs)", c, m.ReqPerS, want, m.WindowS)
		}
		// Little's law with the latency the records show: what the client
		// loses between one response and the next request.
		if little := float64(c) / *m.LatencyMeanS; m.ReqPerS < 0.9*little {
			t.Errorf("c=%d: %.1f req/s, want at least 90%% of C/mean latency = %.1f", c, m.ReqPerS, little)
		}
		t.Logf("c=%d: %.1f req/s (ideal %.0f, %s), %.1f%% of C/mean latency, latency mean %.1fms p50 %.1fms",
			c, m.ReqPerS, want, ideal, 100*m.ReqPerS**m.LatencyMeanS/float64(c), *m.LatencyMeanS*1e3, *m.LatencyP50S*1e3)
	}
}

// TestCacheInflatesOnlyWithoutPerturbation: with the server's cache on,
// unperturbed requests are answered from it (req/s inflates, /metrics
// counts hits); perturbed ones never hit.
func TestCacheInflatesOnlyWithoutPerturbation(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.2)
	reqPerS := map[bool]float64{}
	for _, noPerturb := range []bool{false, true} {
		ts := simServer(t, sim.Config{Corpus: sc, BaseLatency: 40 * time.Millisecond, Cache: true})
		dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
			Levels: []int{4}, Requests: []int{40}, Repeats: 1, NoPerturb: noPerturb})
		if err != nil {
			t.Fatal(err)
		}
		l := loadRun(t, dir)
		reqPerS[noPerturb] = l.claims.Targets[0].Levels[0].Median.ReqPerS
		hits := cacheHits(t, ts.URL)
		if noPerturb {
			if hits == 0 {
				t.Error("--no-perturb: no cache hits")
			}
			if l.run.Protocol.Perturb || l.recs[0].SampleIndex != -1 || l.recs[0].Variant != -1 {
				t.Error("--no-perturb is not recorded")
			}
		} else if hits != 0 {
			t.Errorf("perturbed run: %v cache hits, want 0", hits)
		}
	}
	if reqPerS[true] < 3*reqPerS[false] {
		t.Errorf("cache did not inflate req/s: %.1f unperturbed vs %.1f perturbed", reqPerS[true], reqPerS[false])
	}
}

func TestStreamFirstDeltaAndRawPrefix(t *testing.T) {
	clips, sc := testCorpus(t, 1, 0.2)
	ts := simServer(t, sim.Config{Corpus: sc, BaseLatency: 100 * time.Millisecond, RawPrefix: true})
	dir, _, err := runPlan(t, Plan{Targets: []Target{{Name: "a", URL: ts.URL}}, Corpus: clips,
		Levels: []int{2}, Requests: []int{4}, Repeats: 1, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	if !l.run.Protocol.Stream {
		t.Error("stream not recorded")
	}
	for _, r := range l.recs {
		if !r.OK || r.Text != sim.RawPrefix+refs[0] || r.Scored != refs[0] {
			t.Errorf("seq %d: ok %v text %q scored %q", r.Seq, r.OK, r.Text, r.Scored)
		}
		// Words are spread over the service time: the first delta comes
		// well before the end.
		if !(r.FirstByteNs > r.StartNs && r.EndNs-r.FirstByteNs > int64(20*time.Millisecond)) {
			t.Errorf("seq %d: start %d first delta %d end %d", r.Seq, r.StartNs, r.FirstByteNs, r.EndNs)
		}
	}
}

// BenchmarkRequestPath measures the client's cost per request (precomputed
// variant, multipart body, HTTP round trip on loopback, response decode,
// record) against a server that answers at once.
func BenchmarkRequestPath(b *testing.B) {
	w, err := perturb.Parse("b.wav", makeWAV(16000, 5, 1)) // 160 KB
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // pooled buffer: the server adds no allocations of its own
		rw.Header().Set("Content-Type", "application/json")
		rw.Write([]byte(`{"text":"hello world"}`))
	}))
	defer ts.Close()
	clip := Clip{ID: "b", WAV: w}
	p, _ := Plan{Targets: []Target{{Name: "a", URL: ts.URL, Model: "m"}}, Corpus: []Clip{clip}, Levels: []int{1}, Requests: []int{1}}.normalize()
	r, err := newRunner(p, &config{timeout: time.Minute, progress: Discard}, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r.d.Anchor = time.Now()
	in, err := task.ASR.Input(clip.ID, w.Bytes)
	if err != nil {
		b.Fatal(err)
	}
	v, _ := in.Variant(1234)
	j := job{clip: &clip, v: v, s: in.Splice(v), sha: hexSum(v.SHA256)}
	wk := &worker{br: nil}
	var rec schemas.Record
	b.SetBytes(int64(len(w.Bytes)))
	b.ReportAllocs()
	for b.Loop() {
		rec = schemas.Record{}
		r.do(context.Background(), 0, wk, &j, &rec)
		if !rec.OK {
			b.Fatal(rec.Error)
		}
	}
}
