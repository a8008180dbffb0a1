package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// clientOut is what every client prints as JSON on stdout: the measured
// requests only (warm-ups excluded).
type clientOut struct {
	Requests  int       `json:"requests"`
	Succeeded int       `json:"succeeded"`
	WindowS   float64   `json:"window_s"`  // first measured start -> last measured end
	LatencyS  []float64 `json:"latency_s"` // of the successful measured requests
	Errors    []string  `json:"errors,omitempty"`
	// Intervals are [start, end] seconds of every measured request, on
	// the client's own clock: the client's view of in-flight.
	Intervals [][2]float64 `json:"intervals"`
	// SendCPUS is the client's CPU from its first warm-up request to its
	// last measured one: what sending costs, without start-up or
	// benchseal's variant hashing (done before a step starts).
	SendCPUS float64 `json:"send_cpu_s"`
	// CPUS is the client's CPU from its process's start to the end of
	// its work (bench.Run returned; vegeta's last result taken): the
	// client's cost, without loadcmp's own reading of benchseal's
	// records for this table (claims.LoadDir, the gaps, the intervals)
	// or the encoding of this output.
	CPUS float64 `json:"cpu_s"`
	// GapS (benchseal only: its records name the worker) is, for every
	// measured request but a worker's first, the time from the end of
	// that worker's previous request to its start: the client's own
	// dispatch delay, outside the measured latency.
	GapS []float64 `json:"gap_s,omitempty"`
}

func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakInFlight is the most intervals open at once; an end at the same
// instant as a start closes first.
func peakInFlight(iv [][2]float64) int {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(iv))
	for _, x := range iv {
		evs = append(evs, ev{x[0], 1}, ev{x[1], -1})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmpFloat(a.t, b.t); c != 0 {
			return c
		}
		return a.d - b.d
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}

type clientFlags struct {
	url, clip, profile, dir string
	c, n                    int
}

func parseClient(name string, args []string) (clientFlags, error) {
	var f clientFlags
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&f.url, "url", "", "base URL of the null server")
	fs.StringVar(&f.clip, "clip", "", "WAV clip to send")
	fs.StringVar(&f.profile, "cpuprofile", "", "write a CPU profile of the whole client here")
	fs.StringVar(&f.dir, "dir", "", "run directory to write (benchseal)")
	fs.IntVar(&f.c, "c", 1, "concurrency")
	fs.IntVar(&f.n, "n", 100, "measured requests")
	err := fs.Parse(args)
	if err == nil && (f.url == "" || f.clip == "") {
		err = fmt.Errorf("-url and -clip are required")
	}
	return f, err
}

// clientMain runs one client role and prints its clientOut.
func clientMain(role string, args []string) int {
	f, err := parseClient(role, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadcmp %s: error: %v\n", role, err)
		return 2
	}
	if f.profile != "" {
		pf, err := os.Create(f.profile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadcmp %s: error: %v\n", role, err)
			return 1
		}
		pprof.StartCPUProfile(pf)
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	var out *clientOut
	switch role {
	case "client-benchseal":
		out, err = runBenchseal(f)
	case "client-vegeta":
		out, err = runVegeta(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "loadcmp %s: error: %v\n", role, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// runBenchseal is benchseal's runner as `benchseal run` drives it: one
// target, one level, default warm-up (C requests), one repeat, a real run
// directory with every record.
func runBenchseal(f clientFlags) (*clientOut, error) {
	clip, err := bench.LoadClip(f.clip)
	if err != nil {
		return nil, err
	}
	plan := bench.Plan{Targets: []bench.Target{{Name: "null", URL: f.url, Model: "null"}},
		Corpus: []bench.Clip{clip}, Levels: []int{f.c}, Requests: []int{f.n}, Repeats: 1, Seed: 7}
	var cpu0, cpu float64
	hooks := bench.Hooks{
		BeforeStep: func(context.Context, *bench.Dir, bench.Step) error { cpu0 = selfCPU(); return nil },
		AfterStep:  func(context.Context, *bench.Dir, bench.StepResult) error { cpu = selfCPU() - cpu0; return nil },
	}
	res, err := bench.Run(context.Background(), f.dir, plan, bench.WithTimeout(time.Minute), bench.WithHooks(hooks))
	if err != nil {
		return nil, err
	}
	done := selfCPU()
	m := res.Claims.Targets[0].Levels[0].Median
	_, recs, err := claims.LoadDir(os.DirFS(f.dir))
	if err != nil {
		return nil, err
	}
	out := &clientOut{Requests: m.Requests, Succeeded: m.Succeeded, WindowS: m.WindowS, SendCPUS: cpu, CPUS: done}
	last := map[int]int64{} // worker -> end of its previous measured request
	slices.SortFunc(recs, func(a, b schemas.Record) int { return cmp.Compare(a.StartNs, b.StartNs) })
	for _, r := range recs {
		if r.Phase != schemas.PhaseMeasure {
			continue
		}
		if end, ok := last[r.Worker]; ok {
			out.GapS = append(out.GapS, float64(r.StartNs-end)/1e9)
		}
		last[r.Worker] = r.EndNs
		out.Intervals = append(out.Intervals, [2]float64{float64(r.StartNs) / 1e9, float64(r.EndNs) / 1e9})
		if r.OK {
			out.LatencyS = append(out.LatencyS, float64(r.EndNs-r.StartNs)/1e9)
		} else if len(out.Errors) < 5 {
			out.Errors = append(out.Errors, r.ErrorClass+": "+r.Error)
		}
	}
	return out, nil
}

// multipartBody is the request the Python client and vegeta send: the
// same two parts as benchseal's (model, then the file).
func multipartBody(clip []byte) ([]byte, string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("model", "null"); err != nil {
		return nil, "", err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	pw, err := mw.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	pw.Write(clip)
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), mw.FormDataContentType(), nil
}

// countPacer is vegeta's closed loop (-rate=0) that stops after n hits:
// it never waits, so each of the C workers sends as soon as it is free.
type countPacer struct{ n uint64 }

func (p countPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	return 0, hits >= p.n
}
func (p countPacer) Rate(time.Duration) float64 { return 0 }

func runVegeta(f clientFlags) (*clientOut, error) {
	clip, err := os.ReadFile(f.clip)
	if err != nil {
		return nil, err
	}
	body, ctype, err := multipartBody(clip)
	if err != nil {
		return nil, err
	}
	tgt := vegeta.Target{Method: http.MethodPost, URL: f.url + "/v1/audio/transcriptions", Body: body,
		Header: http.Header{"Content-Type": []string{ctype}}}
	atk := vegeta.NewAttacker(vegeta.Workers(uint64(f.c)), vegeta.MaxWorkers(uint64(f.c)),
		vegeta.KeepAlive(true), vegeta.Connections(f.c), vegeta.Timeout(time.Minute))
	cpu0 := selfCPU()
	for range atk.Attack(vegeta.NewStaticTargeter(tgt), countPacer{uint64(f.c)}, 0, "warmup") {
	}
	// A stopped attacker stays stopped: the measured phase gets a new one.
	atk = vegeta.NewAttacker(vegeta.Workers(uint64(f.c)), vegeta.MaxWorkers(uint64(f.c)),
		vegeta.KeepAlive(true), vegeta.Connections(f.c), vegeta.Timeout(time.Minute))
	out := &clientOut{}
	var first, last time.Time
	t0 := time.Now()
	for r := range atk.Attack(vegeta.NewStaticTargeter(tgt), countPacer{uint64(f.n)}, 0, "measure") {
		out.Requests++
		out.Intervals = append(out.Intervals, [2]float64{r.Timestamp.Sub(t0).Seconds(), r.End().Sub(t0).Seconds()})
		if first.IsZero() || r.Timestamp.Before(first) {
			first = r.Timestamp
		}
		if e := r.End(); e.After(last) {
			last = e
		}
		if r.Code == http.StatusOK && r.Error == "" && bytes.Contains(r.Body, []byte(`"text"`)) {
			out.Succeeded++
			out.LatencyS = append(out.LatencyS, r.Latency.Seconds())
		} else if len(out.Errors) < 5 {
			out.Errors = append(out.Errors, fmt.Sprintf("HTTP %d %s", r.Code, r.Error))
		}
	}
	out.CPUS = selfCPU()
	out.WindowS = last.Sub(first).Seconds()
	out.SendCPUS = out.CPUS - cpu0
	return out, nil
}

// percentile is the one percentile definition of benchseal, for every
// client alike.
func percentile(sorted []float64, p float64) float64 { return claims.Percentile(sorted, p) }

func sortedCopy(v []float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}
