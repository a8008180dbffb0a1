package verify_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// A SeedTTS-sized run: the 1,088 clips of SeedTTS test-en (noise here, 2-5 s
// each, 16 kHz mono), three passes over them per step (3,264 measured
// requests), 2 targets x 5 levels x 3 repeats = 30 steps, 97,920 measured
// records plus the warm-ups, with everything a recorded run carries:
// steps.jsonl, a /metrics scrape before and after every step (request and
// cache counters, e2e histogram), claims.json and REPORT.md. It is
// synthetic (a closed loop of C workers on a virtual clock, 150-450 ms a
// request) but holds every invariant verify checks, so verify does all its
// work: every variant is re-derived from its clip.
const (
	seedClips    = 1088
	seedRequests = 3 * seedClips
	seedRepeats  = 3
)

var seedLevels = []int{1, 8, 16, 32, 64}

type seedFixture struct {
	once   sync.Once
	bundle string
	key    *bundle.Signer
	recs   int
}

var seedtts = &seedFixture{}

func (f *seedFixture) get(tb testing.TB) (string, *bundle.Signer, int) {
	f.once.Do(func() { f.bundle, f.key, f.recs = makeSeedBundle(tb) })
	if f.bundle == "" {
		tb.Fatal("the SeedTTS-sized bundle failed to build")
	}
	return f.bundle, f.key, f.recs
}

// noiseWAV is a 16 kHz mono 16-bit PCM WAV of white noise.
func noiseWAV(rng *rand.Rand, frames int) []byte {
	data := make([]byte, 2*frames)
	for i := 0; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	return testkit.WAV(16000, 1, 16, data)
}

func makeSeedBundle(tb testing.TB) (string, *bundle.Signer, int) {
	base, err := os.MkdirTemp(tmpRoot, "seedtts-")
	must(tb, err)
	dir := filepath.Join(base, "run")
	for _, d := range []string{"inputs", "records/a", "records/b", "telemetry", "env", "servers/a/metrics", "servers/b/metrics"} {
		must(tb, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	tmpl := full.get(tb)
	for _, f := range []string{"env/gpu.json", "env/host.json"} {
		b, err := os.ReadFile(filepath.Join(tmpl, f))
		must(tb, err)
		must(tb, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	var run schemas.Run
	getJSON(tb, filepath.Join(tmpl, "run.json"), &run)
	run.Command, run.Notes, run.Events = nil, nil, nil
	run.Protocol.Levels, run.Protocol.Requests, run.Protocol.Warmup, run.Protocol.Repeats = seedLevels, nil, nil, seedRepeats
	for range seedLevels {
		run.Protocol.Requests = append(run.Protocol.Requests, seedRequests)
	}
	run.Protocol.Warmup = append([]int(nil), seedLevels...)
	run.Targets[0].GPUs, run.Targets[1].GPUs = []int{0}, []int{1}

	// The corpus.
	rng := rand.New(rand.NewPCG(3264, 30))
	type clip struct {
		c      schemas.Clip
		sum    [32]byte
		hasher *perturb.Hasher
		w      *perturb.WAV
	}
	clips := make([]*clip, seedClips)
	run.Corpus = nil
	for i := range clips {
		frames := 32000 + rng.IntN(48000)
		b := noiseWAV(rng, frames)
		w, err := perturb.Parse("clip", b)
		must(tb, err)
		sum := sha256.Sum256(b)
		c := schemas.Clip{ID: fmt.Sprintf("seed%04d", i), File: "inputs/" + hex.EncodeToString(sum[:]) + ".wav", Source: fmt.Sprintf("seed%04d.wav", i),
			SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b)), Format: "pcm", Frames: int64(frames), Channels: 1, SampleRate: 16000,
			Bits: 16, ValidBits: 16, Seconds: float64(frames) / 16000, Text: refs[i%len(refs)]}
		must(tb, os.WriteFile(filepath.Join(dir, c.File), b, 0o644))
		clips[i] = &clip{c: c, sum: sum, w: w}
		run.Corpus = append(run.Corpus, c)
	}

	// The records, step by step in schedule order.
	plan := perturb.Plan{Seed: run.Seed}
	used := make([]int64, seedClips)
	type job struct {
		rec  *schemas.Record
		clip int
	}
	var jobs []job
	files := map[string][]*schemas.Record{}
	var steps []schemas.StepTelemetry
	now := int64(50 * time.Millisecond)
	var order []string
	for _, conc := range seedLevels {
		for rp := 1; rp <= seedRepeats; rp++ {
			targets := []string{"a", "b"}
			if rp%2 == 0 {
				targets = []string{"b", "a"}
			}
			for _, t := range targets {
				f := fmt.Sprintf("records/%s/c%d-r%d.jsonl", t, conc, rp)
				order = append(order, f)
				free := make([]int64, conc)
				for w := range free {
					free[w] = now + int64(w)*20_000 // workers start one after another
				}
				var recs []*schemas.Record
				phase := func(ph string, from, n int) int64 {
					end := int64(0)
					for s := from; s < from+n; s++ {
						w := 0
						for k := range free {
							if free[k] < free[w] {
								w = k
							}
						}
						ci := (s - from) % seedClips
						lat := int64(150*time.Millisecond) + rng.Int64N(int64(300*time.Millisecond))
						start := free[w] + 60_000
						r := &schemas.Record{Target: t, Concurrency: conc, Repeat: rp, Phase: ph, Seq: s, Worker: w, Clip: clips[ci].c.ID,
							Variant: used[ci], Seconds: clips[ci].c.Seconds, StartNs: start, FirstByteNs: start + lat - 1000, EndNs: start + lat,
							Status: 200, OK: true, Output: schemas.Output{Text: clips[ci].c.Text, Scored: task.ScoredText(clips[ci].c.Text)}}
						used[ci]++
						free[w] = r.EndNs
						end = max(end, r.EndNs)
						recs = append(recs, r)
						jobs = append(jobs, job{r, ci})
					}
					return end
				}
				warmEnd := phase(schemas.PhaseWarmup, 0, conc)
				for w := range free {
					free[w] = warmEnd + int64(w)*20_000
				}
				end := phase(schemas.PhaseMeasure, conc, seedRequests)
				var from int64 = -1
				for _, r := range recs[conc:] {
					if from < 0 || r.StartNs < from {
						from = r.StartNs
					}
				}
				steps = append(steps, schemas.StepTelemetry{Target: t, Concurrency: conc, Repeat: rp, StartNs: from, EndNs: end, GPUs: []int{map[string]int{"a": 0, "b": 1}[t]}})
				files[f] = recs
				now = end + int64(20*time.Millisecond)
			}
		}
	}

	// Every variant hashed, on every core, clip by clip.
	byClip := make([][]*schemas.Record, seedClips)
	for _, j := range jobs {
		byClip[j.clip] = append(byClip[j.clip], j.rec)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for ci := range next {
				h := perturb.NewHasher(clips[ci].w)
				for _, r := range byClip[ci] {
					idx, err := plan.Index(clips[ci].sum, clips[ci].w.Samples(), r.Variant)
					if err != nil {
						panic(err)
					}
					v, err := h.Variant(idx)
					if err != nil {
						panic(err)
					}
					r.SampleIndex, r.ByteOffset, r.InputSHA256 = idx, v.ByteOffset, hex.EncodeToString(v.SHA256[:])
				}
			}
		})
	}
	for ci := range seedClips {
		next <- ci
	}
	close(next)
	wg.Wait()

	// Records files, steps.jsonl and the scrapes.
	total := 0
	counters := map[string]*promState{"a": {}, "b": {}}
	sort.Slice(steps, func(i, j int) bool { return steps[i].StartNs < steps[j].StartNs })
	for _, f := range order {
		var buf bytes.Buffer
		for _, r := range files[f] {
			b, _ := json.Marshal(r)
			buf.Write(append(b, '\n'))
		}
		total += len(files[f])
		must(tb, os.WriteFile(filepath.Join(dir, f), buf.Bytes(), 0o644))
	}
	var stepLines bytes.Buffer
	for i := range steps {
		s := &steps[i]
		k := stepFile(s.Target, s.Concurrency, s.Repeat)
		p := counters[s.Target]
		s.CacheBefore = p.cache()
		must(tb, os.WriteFile(filepath.Join(dir, "servers", s.Target, "metrics", fmt.Sprintf("c%d-r%d-before.prom", s.Concurrency, s.Repeat)), p.text(), 0o644))
		for _, r := range files[k] {
			p.requests++
			p.latency += 0.9 * float64(r.EndNs-r.StartNs) / 1e9
		}
		s.CacheAfter = p.cache()
		must(tb, os.WriteFile(filepath.Join(dir, "servers", s.Target, "metrics", fmt.Sprintf("c%d-r%d-after.prom", s.Concurrency, s.Repeat)), p.text(), 0o644))
		b, _ := json.Marshal(s)
		stepLines.Write(append(b, '\n'))
	}
	must(tb, os.WriteFile(filepath.Join(dir, "telemetry/steps.jsonl"), stepLines.Bytes(), 0o644))
	run.Complete, run.EndedAt = true, run.StartedAt.Add(time.Duration(now))
	putJSON(tb, filepath.Join(dir, "run.json"), run)
	refresh(tb, dir)

	s := testSigner(tb)
	out := filepath.Join(base, "evidence.tar.zst")
	fh, err := os.Create(out)
	must(tb, err)
	bw := bufio.NewWriterSize(fh, 1<<20)
	_, err = bundle.Seal(context.Background(), bw, dir, s, bundle.SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: "v0.0.0-test"}})
	must(tb, err)
	must(tb, bw.Flush())
	must(tb, fh.Close())
	must(tb, os.RemoveAll(dir)) // the bundle is what is verified
	return out, s, total
}

func stepFile(target string, conc, repeat int) string {
	return fmt.Sprintf("records/%s/c%d-r%d.jsonl", target, conc, repeat)
}

// promState is a simulated vLLM's counters, cumulative over the run.
type promState struct {
	requests int
	latency  float64
}

func (p *promState) cache() map[string]float64 {
	return map[string]float64{engine.VLLMMMCacheHits: 0, engine.VLLMMMCacheQueries: float64(p.requests)}
}

func (p *promState) text() []byte {
	var b bytes.Buffer
	l := `{engine="0",model_name="Qwen/Qwen3-ASR-1.7B"}`
	fmt.Fprintf(&b, "# TYPE vllm:mm_cache_queries counter\nvllm:mm_cache_queries_total%s %d\n", l, p.requests)
	fmt.Fprintf(&b, "# TYPE vllm:mm_cache_hits counter\nvllm:mm_cache_hits_total%s 0\n", l)
	fmt.Fprintf(&b, "# TYPE vllm:request_success counter\nvllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"Qwen/Qwen3-ASR-1.7B\"} %d\n", p.requests)
	fmt.Fprintf(&b, "# TYPE vllm:e2e_request_latency_seconds histogram\n")
	for _, le := range []string{"0.3", "1", "2.5", "+Inf"} {
		// Every request is counted at the lowest bound: the server's
		// own latencies are never longer than the client's.
		fmt.Fprintf(&b, "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=%q,model_name=\"Qwen/Qwen3-ASR-1.7B\"} %d\n", le, p.requests)
	}
	fmt.Fprintf(&b, "vllm:e2e_request_latency_seconds_sum%s %g\nvllm:e2e_request_latency_seconds_count%s %d\n", l, p.latency, l, p.requests)
	return b.Bytes()
}

// BenchmarkSeedTTS is verify on a SeedTTS-sized bundle (see seedClips):
// the whole checklist, every variant re-derived. It must stay under 10 s.
//
//	go test -run '^$' -bench SeedTTS -benchtime 3x ./verify/
func BenchmarkSeedTTS(b *testing.B) {
	path, s, recs := seedtts.get(b)
	st, err := os.Stat(path)
	must(b, err)
	b.SetBytes(st.Size())
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(path)
		must(b, err)
		rep, err := verify.Bundle(context.Background(), bufio.NewReaderSize(f, 1<<20), verify.Options{PublicKey: s.PublicKey(), TempDir: b.TempDir(), RenderReport: renderReport, RenderReportTool: testTool().BinarySHA256})
		f.Close()
		if err != nil || !rep.OK() {
			dump, _ := json.MarshalIndent(rep, "", "  ")
			b.Fatalf("%v\n%s", err, dump)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() - ru0.Utime.Nano() + ru1.Stime.Nano() - ru0.Stime.Nano())
	// On a machine shared with other work the wall time also measures the
	// others; the CPU time is verify's own.
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/verify")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/verify")
	b.ReportMetric(float64(recs), "records")
}
