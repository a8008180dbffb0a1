package bench

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/schemas"
)

// The open loop against the simulator's queue, a known model: c running
// slots (--max-running) that each take the base latency D (no per-second
// cost) is an M/D/c queue under Poisson arrivals (burstiness 1).
//
// Below capacity (c = 4, D = 50 ms, 56 req/s offered: ρ = 0.7), the mean
// queue time the server counted (its vllm:request_queue_time_seconds
// histogram, scraped before and after the level) agrees with
// mdcMeanWait within 15 %, the model taken at the service time the
// server actually took (its e2e less its queue: D plus sleep overshoot,
// which on a loaded machine moves ρ by a per cent and the wait by
// several). That needs many requests: waits are strongly correlated, and
// the mean of one Poisson path of 2,000 requests at this load spreads
// (sd) about 13 % around the model's (a numeric check over 400 paths),
// of 4,000 about 10 %. The schedule is seeded, so the path is fixed: the
// test replays its planned arrivals through the exact FIFO recursion
// (fifoWaits), which must agree with the model (the sample), and the
// arrivals as sent, which must agree with the server (the loop). D = 50
// ms keeps scheduling noise (≲ 1 ms) small beside the ~10 ms wait; the
// level takes about 71 s.
//
// Above capacity (104 req/s offered to 80 served), the latency from the
// arrival grows over the level, claims say the target did not keep up,
// and the report names 104 req/s as its knee.
func TestOpenLoopQueueModel(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test (about 75 s): run without -race and -short")
	}
	const c = 4
	const d = 50 * time.Millisecond
	rates := []float64{56, 104}
	n := 4000
	if s := os.Getenv("BENCHSEAL_MDC_N"); s != "" { // a shorter run to try the test out; 4,000 for the 15 %
		n, _ = strconv.Atoi(s)
	}
	clips, sc := testCorpus(t, 3, 0.2)
	a := simServer(t, sim.Config{Corpus: sc, BaseLatency: d, MaxRunning: c})
	p := Plan{Targets: []Target{{Name: "a", URL: a.URL}}, Corpus: clips,
		Rates: rates, Requests: []int{n, 400}, Warmup: []int{0, 0}, Repeats: 1, Seed: 1}
	// The server's queue time over each level's measured requests: its
	// vllm:request_queue_time_seconds histogram, scraped before and after.
	var before serverTimes
	queued := map[int]serverTimes{} // by level
	hooks := Hooks{
		BeforeMeasure: func(context.Context, *Dir, Step) error {
			before = scrapeTimes(t, a.URL)
			return nil
		},
		AfterStep: func(_ context.Context, _ *Dir, r StepResult) error {
			after := scrapeTimes(t, a.URL)
			queued[r.Level] = serverTimes{after.queue - before.queue, after.e2e - before.e2e, after.n - before.n}
			return nil
		},
	}
	dir, _, err := runPlan(t, p, WithHooks(hooks))
	if err != nil {
		t.Fatal(err)
	}
	l := loadRun(t, dir)
	lv := l.claims.Targets[0].Levels
	if len(lv) != 2 {
		t.Fatalf("%d levels in claims.json", len(lv))
	}

	// Below capacity.
	m := lv[0].Repeats[0]
	if m.Failed > 0 {
		t.Fatalf("%d of %d requests failed below capacity", m.Failed, m.Requests)
	}
	q := queued[0]
	if q.n != float64(m.Requests) {
		t.Fatalf("the server's queue histogram counted %v requests over the level, not its %d", q.n, m.Requests)
	}
	served := q.queue / q.n
	// The service time the server took, sleep overshoot included (its
	// e2e less its queue, per request): on a loaded machine a little over
	// D, which moves ρ and, near capacity, the wait several times as much.
	took := time.Duration((q.e2e - q.queue) / q.n * 1e9)
	model := mdcMeanWait(c, rates[0], took)
	var planned, sent []float64
	var fromArrival float64
	for _, r := range l.files["records/a/c1-r1.jsonl"] {
		if r.Phase == schemas.PhaseMeasure {
			planned = append(planned, float64(r.PlannedNs)/1e9)
			sent = append(sent, float64(r.StartNs)/1e9)
			fromArrival += float64(r.EndNs-r.PlannedNs) / 1e9
		}
	}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	path, asSent := mean(fifoWaits(planned, c, took)), mean(fifoWaits(sent, c, took))
	fromArrival /= float64(len(planned))
	t.Logf("M/D/%d over %d requests, service %v (D = %v), ρ %.3f: model (Cosmetatos) %.2f ms (%.2f ms at D), the exact FIFO mean of this path %.2f ms as planned, %.2f ms as sent; the server's mean queue time %.2f ms; latency from arrival %.2f ms; lateness p99 %.3f ms",
		c, m.Requests, took.Round(time.Microsecond), d, rates[0]*took.Seconds()/c, model*1e3, mdcMeanWait(c, rates[0], d)*1e3, path*1e3, asSent*1e3, served*1e3, fromArrival*1e3, deref(m.LatenessP99S)*1e3)
	if took < d || took > d+5*time.Millisecond {
		t.Fatalf("the server served each request in %v on average, for a base latency of %v", took, d)
	}
	// The seeded path is a Poisson sample of the model's arrivals: its
	// exact mean wait is within the sampling spread of the model's.
	if r := path / model; math.Abs(r-1) > 0.15 {
		t.Errorf("the planned arrivals' exact FIFO mean wait %.2f ms is %.2f× the M/D/%d model's %.2f ms", path*1e3, r, c, model*1e3)
	}
	// The server is that queue, and the model's, when the sends kept to
	// the schedule. A machine too loaded for that (sends bunched by late
	// wake-ups, lateness p99 over 5 ms: seen at a load average of 3.6 on 2
	// cores, the queue then 1.19× the planned path's, and at 5 1.34× the
	// recursion's over the sends, the server's own goroutines queued
	// behind the load) measures the host, not the loop: then only logged.
	if p99 := deref(m.LatenessP99S); p99 > 0.005 {
		t.Logf("not checked against the recursion or the model: lateness p99 %.1f ms, the sends did not keep to the schedule (the queue %.2f× the recursion's over the sends, %.2f× the model's)",
			p99*1e3, served/asSent, served/model)
	} else {
		if r := served / asSent; math.Abs(r-1) > 0.15 {
			t.Errorf("the server's mean queue time %.2f ms is %.2f× the FIFO recursion's over the sends, %.2f ms", served*1e3, r, asSent*1e3)
		}
		if r := served / model; math.Abs(r-1) > 0.15 {
			t.Errorf("mean queue time %.2f ms is %.2f× the M/D/%d model's %.2f ms (over 15 %% off)", served*1e3, r, c, model*1e3)
		}
		// The user's view holds the queue: latency from arrival is D plus
		// it (and the loopback's overhead, a few ms at most).
		if q := fromArrival - took.Seconds(); q < served*0.85 || q > served+0.005 {
			t.Errorf("latency from arrival less D is %.2f ms; the server queued %.2f ms on average", q*1e3, served*1e3)
		}
	}
	if k := claims.KeepUpOf(lv[0].Median, 0); k != claims.KeptUp {
		t.Errorf("below capacity: kept up %v (growth %v), want kept up", k, lv[0].Median.ArrivalGrowth)
	}

	// Above capacity: 400 requests in about 3.8 s, served at 80 req/s,
	// so the queue (and the latency from arrival) grows by about 0.3 s a
	// second.
	over := lv[1].Median
	if over.ArrivalGrowth == nil || *over.ArrivalGrowth < 2 || over.BacklogGrowth == nil || *over.BacklogGrowth < 5 {
		t.Fatalf("above capacity: latency from arrival grew %v×, backlog %v; want both to grow", over.ArrivalGrowth, over.BacklogGrowth)
	}
	if k := claims.KeepUpOf(over, 0); k != claims.NotKeptUp {
		t.Errorf("above capacity: kept up %v, want did not keep up", k)
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, report.Input{Run: l.run, Claims: l.claims}); err != nil {
		t.Fatal(err)
	}
	if want := "a did not keep up at 104 req/s (its latency from arrival grew"; !strings.Contains(md.String(), want) || !strings.Contains(md.String(), "it kept up at 56 req/s.") {
		t.Errorf("the report lacks %q and that it kept up at 56 req/s:\n%s", want, md.String())
	}
	t.Logf("above capacity: latency from arrival grew %.2f×, backlog grew by %.1f requests", *over.ArrivalGrowth, *over.BacklogGrowth)
}

// serverTimes are the simulated server's seconds queued and end to end
// (vllm:request_queue_time_seconds, vllm:e2e_request_latency_seconds)
// and the requests its queue histogram counted.
type serverTimes struct{ queue, e2e, n float64 }

func scrapeTimes(t testing.TB, url string) serverTimes {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Error(err)
		return serverTimes{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var st serverTimes
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, " ")
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if !ok || err != nil {
			continue
		}
		switch name {
		case "vllm:request_queue_time_seconds_sum":
			st.queue += v
		case "vllm:request_queue_time_seconds_count":
			st.n += v
		case "vllm:e2e_request_latency_seconds_sum":
			st.e2e += v
		}
	}
	return st
}
