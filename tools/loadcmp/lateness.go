package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/schemas"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The open-loop lateness comparison (-lateness, issue 29): send lateness,
// the time from a request's planned send to its actual send, of
// benchseal's open loop and of vegeta's (-rate: a constant pacer) against
// the null server, at each offered rate, both bounded to latenessSlots
// requests in flight, with a 0.5 s clip (16 KB: at 4,000 req/s the 6.48 s
// clip of the closed-loop sweep would be 800 MB/s of upload on two
// cores). benchseal's planned time is its record's planned_ns; vegeta's
// is its attack's start plus seq/rate (vegeta.ConstantPacer's schedule),
// the start read just before Attack, so vegeta's lateness is if anything
// over-stated by the microseconds Attack takes to begin. Percentiles are
// exact (internal/claims.Percentile). The rows run interleaved per rate:
// benchseal constant, benchseal Poisson, vegeta.

const latenessSlots = 64

// latenessBounds are issue 43's bounds on the constant pacer's lateness
// p99, in seconds, by offered rate.
var latenessBounds = map[float64]float64{1000: 0.001, 4000: 0.002}

type latenessRow struct {
	client          string
	rate            float64
	sent, ok, n     int
	sendRate        float64
	p50, p99, worst float64 // seconds
	steal           string  // the host's CPU steal during the row's run
}

func latenessSweep(ctx context.Context, o options, tmp string, stdout, stderr io.Writer) error {
	clip := filepath.Join(tmp, "short.wav")
	if err := writeShortClip(clip); err != nil {
		return err
	}
	url, stop, err := startServer(ctx)
	if err != nil {
		return err
	}
	defer stop()
	loadBefore, _ := os.ReadFile("/proc/loadavg")
	all := readCPUStat()
	var rows []latenessRow
	for _, rate := range o.rates {
		for _, k := range []float64{math.Inf(1), 1} {
			name := "benchseal (constant)"
			if k == 1 {
				name = "benchseal (Poisson)"
			}
			st := readCPUStat()
			r, err := latenessBenchseal(filepath.Join(tmp, fmt.Sprintf("open-%v-%v", rate, k)), url, clip, rate, k, o.n)
			if err != nil {
				return fmt.Errorf("%s at %v req/s: %w", name, rate, err)
			}
			r.client, r.steal = name, stealSince(st)
			rows = append(rows, r)
			fmt.Fprintf(stderr, "loadcmp: %s %v req/s: lateness p99 %.3f ms\n", name, rate, r.p99*1e3)
		}
		st := readCPUStat()
		r, err := latenessVegeta(url, clip, rate, o.n)
		if err != nil {
			return fmt.Errorf("vegeta at %v req/s: %w", rate, err)
		}
		r.steal = stealSince(st)
		rows = append(rows, r)
		fmt.Fprintf(stderr, "loadcmp: vegeta %v req/s: lateness p99 %.3f ms\n", rate, r.p99*1e3)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(stdout, "## Open-loop send lateness (sent − planned) against the null server\n\n")
	fmt.Fprintf(stdout, "%d measured requests per client and rate (after %d warm-ups), at most %d in flight, 0.5 s clip; %s; load average before: %s; after: %s; CPU steal over the sweep: %s.\n\n",
		o.n, latenessSlots, latenessSlots, cpuModel(), strings.TrimSpace(string(loadBefore)), strings.TrimSpace(string(load)), stealSince(all))
	fmt.Fprintln(stdout, "| client | offered req/s | sent req/s | ok | lateness p50 ms | p99 ms | max ms | host CPU steal | constant pacer: p99 ≤ 1 ms at 1,000 req/s, ≤ 2 ms at 4,000 |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		target := "—"
		if bound, ok := latenessBounds[r.rate]; ok && r.client == "benchseal (constant)" {
			target = passMiss(r.p99 <= bound)
		}
		fmt.Fprintf(stdout, "| %s | %.0f | %.0f | %d/%d | %.3f | %.3f | %.3f | %s | %s |\n", r.client, r.rate, r.sendRate, r.ok, r.n, r.p50*1e3, r.p99*1e3, r.worst*1e3, r.steal, target)
	}
	return nil
}

// latenessBenchseal is benchseal's open loop: one target, one level at
// rate, burstiness k, latenessSlots slots, one repeat.
func latenessBenchseal(dir, url, clipPath string, rate, k float64, n int) (latenessRow, error) {
	clip, err := bench.LoadClip(clipPath)
	if err != nil {
		return latenessRow{}, err
	}
	plan := bench.Plan{Targets: []bench.Target{{Name: "null", URL: url, Model: "null"}}, Corpus: []bench.Clip{clip},
		Rates: []float64{rate}, Burstiness: k, MaxConcurrency: latenessSlots, Requests: []int{n}, Warmup: []int{latenessSlots}, Repeats: 1, Seed: 1}
	res, err := bench.Run(context.Background(), dir, plan, bench.WithTimeout(time.Minute))
	if err != nil {
		return latenessRow{}, err
	}
	m := res.Claims.Targets[0].Levels[0].Median
	row := latenessRow{rate: rate, n: m.Requests, ok: m.Succeeded}
	if m.SendRate != nil {
		row.sendRate = *m.SendRate
	}
	recs, err := os.ReadFile(filepath.Join(dir, "records", "null", "c1-r1.jsonl"))
	if err != nil {
		return row, err
	}
	var late []float64
	for _, line := range bytes.Split(bytes.TrimSpace(recs), []byte("\n")) {
		var r schemas.Record
		if err := json.Unmarshal(line, &r); err != nil {
			return row, err
		}
		if r.Phase == schemas.PhaseMeasure {
			late = append(late, float64(r.StartNs-r.PlannedNs)/1e9)
		}
	}
	row.sent = len(late)
	row.p50, row.p99, row.worst = spread3(late)
	return row, nil
}

// latenessVegeta is vegeta's open loop: a constant pacer at rate for n
// hits, latenessSlots workers at most, keep-alive, the same body every
// time, after latenessSlots warm-up hits.
func latenessVegeta(url, clipPath string, rate float64, n int) (latenessRow, error) {
	clip, err := os.ReadFile(clipPath)
	if err != nil {
		return latenessRow{}, err
	}
	body, ctype, err := multipartBody(clip)
	if err != nil {
		return latenessRow{}, err
	}
	tgt := vegeta.Target{Method: http.MethodPost, URL: url + "/v1/audio/transcriptions", Body: body,
		Header: http.Header{"Content-Type": []string{ctype}}}
	attacker := func() *vegeta.Attacker {
		return vegeta.NewAttacker(vegeta.Workers(latenessSlots), vegeta.MaxWorkers(latenessSlots),
			vegeta.KeepAlive(true), vegeta.Connections(latenessSlots), vegeta.Timeout(time.Minute))
	}
	for range attacker().Attack(vegeta.NewStaticTargeter(tgt), countPacer{latenessSlots}, 0, "warmup") {
	}
	pacer := vegeta.ConstantPacer{Freq: int(rate), Per: time.Second}
	dur := time.Duration(float64(n) / rate * float64(time.Second))
	atk := attacker()
	row := latenessRow{client: "vegeta -rate (constant)", rate: rate}
	var late []float64
	var first, last time.Time
	began := time.Now()
	for r := range atk.Attack(vegeta.NewStaticTargeter(tgt), pacer, dur, "measure") {
		row.n++
		planned := began.Add(time.Duration(float64(r.Seq) / rate * float64(time.Second)))
		late = append(late, r.Timestamp.Sub(planned).Seconds())
		if first.IsZero() || r.Timestamp.Before(first) {
			first = r.Timestamp
		}
		if r.Timestamp.After(last) {
			last = r.Timestamp
		}
		if r.Code == http.StatusOK && r.Error == "" {
			row.ok++
		}
	}
	row.sent = len(late)
	if row.sent > 1 && last.After(first) {
		row.sendRate = float64(row.sent-1) / last.Sub(first).Seconds()
	}
	row.p50, row.p99, row.worst = spread3(late)
	return row, nil
}

func spread3(v []float64) (p50, p99, worst float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := sortedCopy(v)
	return percentile(s, 50), percentile(s, 99), s[len(s)-1]
}

// writeShortClip writes 0.5 s of 16 kHz 16-bit mono noise.
func writeShortClip(path string) error {
	const frames = 8000
	b := wavHeader(frames)
	for i := range frames {
		v := 4000 * math.Sin(2*math.Pi*440*float64(i)/16000)
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(v)))
	}
	return os.WriteFile(path, b, 0o644)
}
