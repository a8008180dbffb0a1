package sim

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// closedLoop runs c workers that send n requests in all, each a distinct
// variant, and returns the requests per second achieved.
func closedLoop(t testing.TB, url string, clip []byte, c, n int) float64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				if status, body := post(t, context.Background(), url, flip(clip, 100+int(i))); status != 200 {
					t.Errorf("status %d: %s", status, body)
					return
				}
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// TestNoSerialisation checks the two properties the runner's throughput
// tests rest on: a request never finishes before its service time (so
// req/s can never exceed C / latency), and concurrent requests are not
// serialised (the lower bound is a quarter of ideal: serialising 16
// workers would give a sixteenth). Precise ratios are in
// BenchmarkClosedLoop.
func TestNoSerialisation(t *testing.T) {
	corpus := testCorpus(t)
	const latency = 50 * time.Millisecond
	const c = 16
	_, ts := newTestServer(t, Config{Corpus: corpus, BaseLatency: latency, MaxRunning: c})
	ideal := float64(c) / latency.Seconds()
	got := closedLoop(t, ts.URL, corpus[0].Audio, c, 4*c)
	if got > ideal*1.001 || got < ideal/4 {
		t.Errorf("%d workers at %v: %.1f req/s, ideal %.1f", c, latency, got, ideal)
	}
	t.Logf("%.1f req/s of ideal %.1f (%.3f)", got, ideal, got/ideal)
}

func TestPerAudioSecond(t *testing.T) {
	clip := makeWAV(t, 8000, 2.0, 0)
	_, ts := newTestServer(t, Config{Corpus: []Clip{{Audio: clip, Text: "x"}}, BaseLatency: 10 * time.Millisecond, PerAudioSecond: 40 * time.Millisecond})
	start := time.Now()
	post(t, context.Background(), ts.URL, clip)
	// 10 ms + 2 s × 40 ms: a timer never fires early, so 90 ms is a floor.
	if d := time.Since(start); d < 90*time.Millisecond {
		t.Errorf("request took %v, service time is 90ms", d)
	}
}

// TestClientLeavesWhileServed: a cancelled request frees its slot without
// waiting out its service time.
func TestClientLeavesWhileServed(t *testing.T) {
	corpus := testCorpus(t)
	_, ts := newTestServer(t, Config{Corpus: corpus, BaseLatency: time.Hour, MaxRunning: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { post(t, ctx, ts.URL, corpus[0].Audio); close(done) }()
	waitFor(t, ts.URL, "vllm:num_requests_running", 1)
	cancel()
	<-done
	waitFor(t, ts.URL, "vllm:num_requests_running", 0)
}

// BenchmarkClosedLoop reports achieved/ideal throughput (ratio) against a
// 50 ms server for several concurrencies: the runner's tests want >= 0.9.
func BenchmarkClosedLoop(b *testing.B) {
	corpus := testCorpus(b)
	const latency = 50 * time.Millisecond
	for _, c := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			srv, err := New(Config{Corpus: corpus, BaseLatency: latency, MaxRunning: c})
			if err != nil {
				b.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost = 128
			n := max(b.N, 4*c)
			b.ResetTimer()
			got := closedLoop(b, ts.URL, corpus[0].Audio, c, n)
			b.ReportMetric(got, "req/s")
			b.ReportMetric(got/(float64(c)/latency.Seconds()), "ratio")
		})
	}
}

// BenchmarkRequest is the server's own overhead per request: zero latency,
// one client, a 1-second 16 kHz clip perturbed per request.
func BenchmarkRequest(b *testing.B) {
	corpus := testCorpus(b)
	_, ts := newTestServer(b, Config{Corpus: corpus})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		post(b, context.Background(), ts.URL, flip(corpus[0].Audio, 100+i%30000))
	}
}

// BenchmarkRecognise is the lookup of a variant of a 30-second clip among
// 100 clips of one length.
func BenchmarkRecognise(b *testing.B) {
	var clips []Clip
	for i := range 100 {
		clips = append(clips, Clip{Audio: makeWAV(b, 16000, 30, int16(i)), Text: "t"})
	}
	ix := newIndex(clips)
	v := flip(clips[42].Audio, 1000)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if ix.lookup(v, digestOf(v)) != 42 {
			b.Fatal("not recognised")
		}
	}
}
