package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// sealRow is one run directory sealed twice and verified once.
type sealRow struct {
	SizeMB         int
	Bytes          int64
	Files          int
	SealMBs        float64 // run-directory MB per second, bundle discarded (second seal)
	SealFileMBs    float64 // the same, bundle written to a file (first seal)
	SealRSS        int64
	VerifyMBs      float64 // run-directory MB per second, verify.Bundle (all checks)
	VerifyRSS      int64
	OpenMBs        float64 // bundle.Open + signature + subjects
	OpenRSS        int64
	BundleBytes    int64
	Deterministic  bool
	SHA1, SHA2     string
	SealCPUPerMB   float64
	VerifyCPUPerMB float64
}

type report struct {
	opts   options
	rows   []row
	seals  []sealRow
	limits *limits
	notes  []string
	// ratios: client+level -> benchseal's req/s over its, one per round;
	// "cpu "+client+level -> benchseal's client CPU per request over its.
	ratios map[string][]float64
}

// ratio is the median paired ratio of benchseal's req/s over client's at
// level c, and the ratios of every round.
func (r *report) ratio(client string, c int) (float64, string, bool) {
	v := r.ratios[fmt.Sprint(client, c)]
	if len(v) == 0 {
		return 0, "", false
	}
	s := sortedCopy(v)
	var parts []string
	for _, x := range v {
		parts = append(parts, fmt.Sprintf("%.2f", x))
	}
	return percentile(s, 50), strings.Join(parts, " "), true
}

func sealSweep(ctx context.Context, o options, tmp string, rep *report, stderr io.Writer) error {
	exe, err := self()
	if err != nil {
		return err
	}
	url, stop, err := startServer(ctx)
	if err != nil {
		return err
	}
	defer stop()
	for i, mb := range o.sizesMB {
		dir := filepath.Join(tmp, fmt.Sprintf("rundir-%dMB", mb))
		corpus := filepath.Join(tmp, fmt.Sprintf("corpus-%dMB", mb))
		fmt.Fprintf(stderr, "loadcmp: building a %d MB run directory\n", mb)
		size, err := buildRunDir(ctx, dir, corpus, url, int64(mb)<<20)
		os.RemoveAll(corpus)
		if err != nil {
			return fmt.Errorf("build run directory: %w", err)
		}
		if i == 0 {
			sample, err := sampleMix(dir)
			if err != nil {
				return err
			}
			l, err := measureLimits(sample)
			if err != nil {
				return err
			}
			rep.limits = &l
		}
		files := 0
		filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files++
			}
			return nil
		})
		sr := sealRow{SizeMB: mb, Bytes: size, Files: files}
		mbOf := float64(size) / (1 << 20)
		var sums []string
		out := filepath.Join(tmp, fmt.Sprintf("bundle-%dMB.tar.zst", mb))
		for k := range 2 {
			// Flush what the build (or the last seal) left dirty, so that
			// write-back does not run inside the next measurement.
			syscall.Sync()
			args := []string{"seal", "-dir", dir, "-out", out}
			if k == 1 {
				args = args[:3] // -out "": the bundle goes to io.Discard
			}
			var so timedOut
			cr, err := runChild(ctx, 20*time.Minute, exe, args, &so)
			if err != nil {
				return err
			}
			sums = append(sums, so.SHA256)
			if k == 1 {
				sr.SealMBs, sr.SealRSS = mbOf/so.Seconds, max(sr.SealRSS, so.PeakRSS)
				sr.SealCPUPerMB = cr.CPU.Seconds() / mbOf
			}
			if k == 0 {
				sr.SealFileMBs, sr.SealRSS, sr.BundleBytes = mbOf/so.Seconds, so.PeakRSS, so.Size
				syscall.Sync()
				var vo timedOut
				vargs := []string{"verify", "-bundle", out}
				if o.profileDir != "" {
					vargs = append(vargs, "-cpuprofile", filepath.Join(o.profileDir, fmt.Sprintf("verify-%dMB.pprof", mb)))
				}
				vr, err := runChild(ctx, 20*time.Minute, exe, vargs, &vo)
				if err != nil {
					return err
				}
				sr.VerifyMBs, sr.VerifyRSS, sr.VerifyCPUPerMB = mbOf/vo.Seconds, vo.PeakRSS, vr.CPU.Seconds()/mbOf
				var oo timedOut
				if _, err := runChild(ctx, 20*time.Minute, exe, []string{"open", "-bundle", out}, &oo); err != nil {
					return err
				}
				sr.OpenMBs, sr.OpenRSS = mbOf/oo.Seconds, oo.PeakRSS
			}
			fmt.Fprintf(stderr, "loadcmp: %d MB: seal %d took %.2fs\n", mb, k+1, so.Seconds)
		}
		os.Remove(out)
		sr.SHA1, sr.SHA2 = sums[0], sums[1]
		sr.Deterministic = sums[0] == sums[1] && sums[0] != ""
		rep.seals = append(rep.seals, sr)
		os.RemoveAll(dir)
	}
	return nil
}

func ms(s float64) string { return fmt.Sprintf("%.2f", s*1e3) }

func mib(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }

func passMiss(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// write prints the tables and the targets, and returns how many targets
// were missed.
func (r *report) write(w io.Writer) int {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "# loadcmp %s\n\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "machine: %s, %d CPUs (GOMAXPROCS %d), %s, %s/%s, host %s\n\n", cpuModel(), runtime.NumCPU(),
		runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH, host)
	byKey := map[string]row{}
	if len(r.rows) > 0 {
		fmt.Fprintf(w, "## Load generators against the null server (N=%d measured requests per client and level, C warm-ups first; rounds=%d)\n\n", r.opts.n, r.opts.rounds)
		fmt.Fprintln(w, "| C | client | req/s | vs benchseal | client CPU s / 1k req | process CPU s / 1k req | of which sending | server CPU s / 1k req | p50 ms | p99 ms | peak in-flight: client / server | mean in-flight | dispatch gap ms: mean / p99 | failed |")
		fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, x := range r.rows {
			byKey[fmt.Sprint(x.Client, x.C)] = x
		}
		for _, x := range r.rows {
			if x.Err != "" && x.ReqPerS == 0 {
				fmt.Fprintf(w, "| %d | %s | error: %s | | | | | | | | | | | |\n", x.C, x.Client, strings.ReplaceAll(x.Err, "|", "/"))
				continue
			}
			rel := "1.00x"
			if m, _, ok := r.ratio(x.Client, x.C); ok && x.Client != "benchseal" {
				rel = fmt.Sprintf("%.2fx", m)
			}
			gap := ms(x.GapMean) + " / -"
			if x.GapP99 >= 0 {
				gap = ms(x.GapMean) + " / " + ms(x.GapP99)
			}
			fmt.Fprintf(w, "| %d | %s | %.0f | %s | %.3f | %.3f | %.3f | %.3f | %s | %s | %d / %d | %.1f | %s | %d |\n", x.C, x.Client, x.ReqPerS, rel, x.CPUPer1k,
				x.ProcCPU1k, x.SendCPU1k, x.ServerCPU1k, ms(x.P50), ms(x.P99), x.ClientPeak, x.PeakInFlight, x.MeanInFlight, gap, x.Failed)
		}
		fmt.Fprintln(w, "\nEach row is the client's median-throughput round. \"vs benchseal\": median over rounds of benchseal's req/s divided by this")
		fmt.Fprintln(w, "client's in the same round (client order reversed every other round). Client CPU: user+system of the client process")
		fmt.Fprintln(w, "(getrusage) from its start to the end of its work (benchseal: bench.Run returned, claims.json written; vegeta: its last")
		fmt.Fprintln(w, "result), start-up and warm-ups included, per request sent; process CPU: the child's whole rusage, with loadcmp's own")
		fmt.Fprintln(w, "reading of benchseal's records for this table (Python: process CPU both); of which sending: from the first warm-up to the last measured request")
		fmt.Fprintln(w, "(benchseal hashes a step's variants before it, so that is outside); server CPU: the null server's during that client's run.")
		fmt.Fprintln(w, "Peak in-flight, client: most requests open at once by the client's own start/end times (verify's definition);")
		fmt.Fprintln(w, "server: most connections with a request being read or answered, or its bytes waiting in the socket (sampled every 2 ms).")
		fmt.Fprintln(w, "Mean in-flight: req/s × mean latency (Little's law), how many requests the client kept open on average; at saturation")
		fmt.Fprintln(w, "latency grows with it, so compare latencies of clients with the same mean in-flight. Dispatch gap: how long a worker")
		fmt.Fprintln(w, "waits between one response and its next request, (C - mean in-flight) / req/s; p99 per request from benchseal's records.")
		fmt.Fprintln(w)
	}
	if len(r.seals) > 0 {
		fmt.Fprintln(w, "## Seal and verify")
		fmt.Fprintln(w)
		if l := r.limits; l != nil {
			sealLim := 1 / (3/l.SHA256MBs + 1/l.ZstdEncMBs)
			verLim := 1 / (1/l.SHA256MBs + 1/l.ZstdDecMBs)
			fmt.Fprintf(w, "reference (one core, same byte mix): SHA-256 %.0f MB/s, zstd SpeedFastest encode %.0f MB/s, decode %.0f MB/s;\n", l.SHA256MBs, l.ZstdEncMBs, l.ZstdDecMBs)
			fmt.Fprintf(w, "limit of seal's one-core pipeline (hash pass + hash, compress, hash output) %.0f MB/s; of verify (decompress + hash) %.0f MB/s\n\n", sealLim, verLim)
		}
		fmt.Fprintln(w, "| run dir | files | seal MB/s | seal MB/s to a file | seal peak RSS MB | verify MB/s | verify peak RSS MB | open+subjects MB/s | open peak RSS MB | bundle MB | seal twice: same SHA-256 |")
		fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
		for _, s := range r.seals {
			fmt.Fprintf(w, "| %s MB | %d | %.0f | %.0f | %s | %.0f | %s | %.0f | %s | %s | %v (%s…) |\n", mib(s.Bytes), s.Files, s.SealMBs, s.SealFileMBs, mib(s.SealRSS),
				s.VerifyMBs, mib(s.VerifyRSS), s.OpenMBs, mib(s.OpenRSS), mib(s.BundleBytes), s.Deterministic, s.SHA1[:min(12, len(s.SHA1))])
		}
		fmt.Fprintln(w, "\nMB/s: run-directory bytes per second of wall clock. seal: bundle to io.Discard (then to a file); verify: verify.Bundle, all")
		fmt.Fprintln(w, "every check, must pass; open+subjects: bundle.Open, the signature and every subject digest. Peak RSS: VmHWM of the child.")
		fmt.Fprintln(w)
	}
	missed := 0
	target := func(ok bool, format string, args ...any) {
		if !ok {
			missed++
		}
		fmt.Fprintf(w, "- %s %s\n", passMiss(ok), fmt.Sprintf(format, args...))
	}
	fmt.Fprintln(w, "## Targets")
	fmt.Fprintln(w)
	for _, c := range r.opts.levels {
		b, okb := byKey[fmt.Sprint("benchseal", c)]
		if !okb {
			continue
		}
		if m, all, ok := r.ratio("vegeta", c); ok {
			target(m >= 1 && b.Err == "", "c=%d: benchseal req/s >= vegeta's: median paired ratio %.2fx (rounds: %s)", c, m, all)
		}
		if m, all, ok := r.ratio("cpu vegeta", c); ok && c >= 16 {
			target(m <= 1 && b.Err == "", "c=%d: benchseal client CPU per request <= vegeta's: median paired ratio %.2fx (rounds: %s)", c, m, all)
		}
		if m, all, ok := r.ratio("python-aiohttp", c); ok && c >= 16 {
			target(m >= 5, "c=%d: benchseal req/s >= 5x python-aiohttp's: median paired ratio %.2fx (rounds: %s)", c, m, all)
		}
		target(b.ClientPeak == c, "c=%d: benchseal peak in-flight == C (records show %d; the server saw %d)", c, b.ClientPeak, b.PeakInFlight)
		if c == 64 {
			target(b.GapP99 >= 0 && b.GapP99 < 0.001, "c=64: client-added latency p99 under 1 ms: benchseal's dispatch gap p99 %sms (mean %sms)", ms(b.GapP99), ms(b.GapMean))
			if v, ok := byKey[fmt.Sprint("vegeta", c)]; ok {
				fmt.Fprintf(w, "- note: c=64: latency p99 benchseal %sms with %.1f in flight on average, vegeta %sms with %.1f; vegeta's mean dispatch gap %sms\n",
					ms(b.P99), b.MeanInFlight, ms(v.P99), v.MeanInFlight, ms(v.GapMean))
			}
		}
	}
	for _, c := range r.opts.levels {
		for _, n := range clientNames[1:] {
			if x, ok := byKey[fmt.Sprint(n, c)]; ok && x.ClientPeak != c {
				fmt.Fprintf(w, "- note: c=%d: %s kept at most %d requests in flight by its own timestamps\n", c, n, x.ClientPeak)
			}
		}
	}
	if l := r.limits; l != nil && len(r.seals) > 0 {
		sealLim := 1 / (3/l.SHA256MBs + 1/l.ZstdEncMBs)
		verLim := 1 / (1/l.SHA256MBs + 1/l.ZstdDecMBs)
		for _, s := range r.seals {
			target(s.Deterministic, "%s MB: two seals with one key give the same bytes", mib(s.Bytes))
			target(s.SealMBs >= 0.7*sealLim, "%s MB: seal %.0f MB/s >= 70%% of its one-core limit %.0f MB/s", mib(s.Bytes), s.SealMBs, sealLim)
			target(s.OpenMBs >= 0.7*verLim, "%s MB: open+subjects %.0f MB/s >= 70%% of its one-core limit %.0f MB/s", mib(s.Bytes), s.OpenMBs, verLim)
			// verify.Bundle also re-derives every record's variant: one
			// more SHA-256 of a clip per request (two per clip here).
			fullLim := 1 / (1/l.ZstdDecMBs + 3/l.SHA256MBs)
			target(s.VerifyMBs >= 0.7*fullLim, "%s MB: verify.Bundle %.0f MB/s >= 70%% of its one-core limit %.0f MB/s (decompress, hash every file and two variants of every clip)",
				mib(s.Bytes), s.VerifyMBs, fullLim)
		}
		if len(r.seals) >= 2 {
			a, z := r.seals[0], r.seals[len(r.seals)-1]
			flat := func(x, y int64) bool { return float64(y) <= 1.25*float64(x)+16<<20 }
			target(flat(a.SealRSS, z.SealRSS), "seal peak RSS flat in bundle size: %s -> %s MB from %s to %s MB", mib(a.SealRSS), mib(z.SealRSS), mib(a.Bytes), mib(z.Bytes))
			target(flat(a.OpenRSS, z.OpenRSS), "open+subjects peak RSS flat in bundle size: %s -> %s MB", mib(a.OpenRSS), mib(z.OpenRSS))
			target(flat(a.VerifyRSS, z.VerifyRSS), "verify.Bundle peak RSS flat in bundle size: %s -> %s MB", mib(a.VerifyRSS), mib(z.VerifyRSS))
		}
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "- note: %s\n", n)
	}
	return missed
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
