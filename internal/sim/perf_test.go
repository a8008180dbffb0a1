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
// serialised. The second is held against what this host measures rather
// than a fixed share of ideal: the same closed loop against a server with
// no service time (before and after, the slower counts) is the client's and
// server's own cost here, so a parallel server takes at most the ideal
// time plus twice that cost, where a serialised one needs n service
// times. Where a busy host's cost leaves the two too close to tell apart,
// the service time grows and the loop runs again. Precise ratios are in
// BenchmarkClosedLoop.
func TestNoSerialisation(t *testing.T) {
	corpus := testCorpus(t)
	const c, n = 16, 64
	_, zero := newTestServer(t, Config{Corpus: corpus, MaxRunning: c})
	overhead := func() time.Duration {
		start := time.Now()
		closedLoop(t, zero.URL, corpus[0].Audio, c, n)
		return time.Since(start)
	}
	for latency := 50 * time.Millisecond; ; latency *= 4 {
		_, ts := newTestServer(t, Config{Corpus: corpus, BaseLatency: latency, MaxRunning: c})
		ideal := float64(c) / latency.Seconds()
		before := overhead()
		got := closedLoop(t, ts.URL, corpus[0].Audio, c, n)
		cost := max(before, overhead())
		took := time.Duration(float64(n) / got * float64(time.Second))
		idealTime := time.Duration(n/c) * latency
		serialTime := time.Duration(n) * latency
		bound := idealTime + 2*cost
		t.Logf("latency %v: %.1f req/s of ideal %.1f (%.3f); took %v, ideal %v, the host's cost %v, serialised %v",
			latency, got, ideal, got/ideal, took.Round(time.Millisecond), idealTime, cost.Round(time.Millisecond), serialTime)
		if got > ideal*1.001 {
			t.Fatalf("%d workers at %v: %.1f req/s, faster than ideal %.1f", c, latency, got, ideal)
		}
		if bound > serialTime/2 {
			if latency >= 3200*time.Millisecond {
				t.Skipf("the host's own cost (%v per %d requests) is too high to tell a parallel server from a serialised one", cost, n)
			}
			continue // too close to tell: a longer service time
		}
		if took > bound {
			t.Errorf("%d workers at %v took %v for %d requests: more than ideal %v + twice the host's cost %v (serialised: %v)",
				c, latency, took.Round(time.Millisecond), n, idealTime, cost.Round(time.Millisecond), serialTime)
		}
		return
	}
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
