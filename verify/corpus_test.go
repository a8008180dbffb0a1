package verify_test

// The doctored-bundle corpus: a real run made the way benchseal run makes
// it (the runner, the fingerprint recorder's probes, /metrics scrapes and
// telemetry, REPORT.md) against two simulated servers, then, per kind,
// one fact changed in the run directory the way a key holder would change
// it (claims.json and REPORT.md recomputed so that they agree with the
// edit, everything else left as the edit leaves it), re-sealed with a key
// of its own and verified with that key. Only a cross-check between two
// sealed files can catch such an edit. Each kind names the check and the
// verdict it must get.
//
//	go test -run TestCorpus ./verify/ -corpus DIR
//
// also writes every doctored bundle, its public key and an EXPECT file
// into DIR.

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/internal/sim"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/klauspost/compress/zstd"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
)

var corpusOut = flag.String("corpus", "", "write the doctored bundles, their keys and EXPECT files into this directory")

// fullRun is the base of the corpus: levels 1 and 3, 6 measured requests,
// 2 repeats, two targets (each its own simulated vLLM, 60 ms a request, so
// that a request taken out of a worker's sequence leaves a gap longer than
// verify's dispatch tolerance), GPUs a=0 and b=1.
type fullFixture struct {
	once sync.Once
	dir  string
}

var full = &fullFixture{}

func (f *fullFixture) get(tb testing.TB) string {
	f.once.Do(func() {
		base, err := os.MkdirTemp(tmpRoot, "full-")
		must(tb, err)
		makeFullRun(tb, base)
		f.dir = filepath.Join(base, "run")
	})
	if f.dir == "" || !exists(filepath.Join(f.dir, "REPORT.md")) {
		tb.Fatal("the corpus's base run failed to build")
	}
	return f.dir
}

func makeFullRun(tb testing.TB, base string, extra ...bench.Hooks) {
	makeRunLimited(tb, base, 64, extra...)
}

// makeRunLimited is makeFullRun with each simulated server running at
// most maxRunning requests at once (it serves max_num_seqs maxRunning).
func makeRunLimited(tb testing.TB, base string, maxRunning int, extra ...bench.Hooks) {
	corpusDir, dir := filepath.Join(base, "corpus"), filepath.Join(base, "run")
	must(tb, os.Mkdir(corpusDir, 0o755))
	var sc []sim.Clip
	for i := range 2 {
		w := makeWAV(1, uint64(i+11))
		name := filepath.Join(corpusDir, string(rune('a'+i))+".wav")
		must(tb, os.WriteFile(name, w, 0o644))
		must(tb, os.WriteFile(strings.TrimSuffix(name, ".wav")+".txt", []byte(refs[i]+"\n"), 0o644))
		sc = append(sc, sim.Clip{Audio: w, Text: refs[i]})
	}
	clips, err := bench.LoadCorpus(corpusDir)
	must(tb, err)
	urls := map[string]string{}
	// The servers export their spans to one OTLP receiver (gRPC, vLLM's
	// default), so the base run has per-request server evidence and check
	// CheckEvents passes.
	otlp, err := serverevents.Listen("127.0.0.1:0")
	must(tb, err)
	defer otlp.Close()
	for _, name := range []string{"a", "b"} {
		// DevMode: the vLLM persona serves /server_info, so the base run's
		// knobs are observed and check 8 passes.
		s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: 60 * time.Millisecond, DevMode: true, MaxRunning: maxRunning, OTLPEndpoint: "http://" + otlp.Addr()})
		must(tb, err)
		ts := httptest.NewServer(s)
		defer ts.Close()
		defer s.Close()
		urls[name] = ts.URL
	}
	gpus := map[string][]int{"a": {0}, "b": {1}}
	args := []string{"benchseal", "run", "--target", "a=" + urls["a"], "--target", "b=" + urls["b"],
		"--gpu", "a=0", "--gpu", "b=1", "--corpus", corpusDir, "--concurrency", "1,3", "--requests", "6", "--repeats", "2", "--out", dir}
	rec := fingerprint.NewRecorder(fingerprint.RecorderConfig{Args: args, SampleInterval: 20 * time.Millisecond,
		Targets: map[string]fingerprint.Endpoint{"a": {URL: urls["a"], GPUs: gpus["a"]}, "b": {URL: urls["b"], GPUs: gpus["b"]}}})
	hooks := bench.Hooks{
		BeforeSweep: func(ctx context.Context, d *bench.Dir) error {
			for i := range d.Run.Targets {
				d.Run.Targets[i].GPUs = gpus[d.Run.Targets[i].Name]
			}
			return rec.BeforeSweep(ctx, d.Path, d.Anchor)
		},
		BeforeStep: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
			return rec.StepStart(ctx, s.Target, s.Concurrency, s.Repeat)
		},
		BeforeMeasure: func(ctx context.Context, d *bench.Dir, s bench.Step) error {
			return rec.MeasureStart(ctx, s.Target, s.Concurrency, s.Repeat)
		},
		AfterStep: func(ctx context.Context, d *bench.Dir, r bench.StepResult) error {
			_, err := rec.StepEnd(ctx, r.Target, r.Concurrency, r.Repeat, r.StartNs, r.EndNs)
			return err
		},
		AfterSweep: func(ctx context.Context, d *bench.Dir) error {
			silent, err := serverevents.CollectOTLP(ctx, d.Path, d.Run, otlp, 30*time.Second)
			if err != nil || len(silent) > 0 {
				tb.Errorf("collecting the spans: %v (no spans from %v)", err, silent)
			}
			return rec.AfterSweep(ctx)
		},
	}
	plan := bench.Plan{
		Targets: []bench.Target{{Name: "a", URL: urls["a"]}, {Name: "b", URL: urls["b"]}},
		Corpus:  clips, Levels: []int{1, 3}, Requests: []int{6}, Repeats: 2, Seed: 7, Command: args,
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
	}
	opts := []bench.Option{bench.WithHooks(hooks), bench.WithTool(testTool())}
	for _, h := range extra {
		opts = append(opts, bench.WithHooks(h))
	}
	_, err = bench.Run(context.Background(), dir, plan, opts...)
	must(tb, err)
	// This machine has no GPU: give the run the GPU facts of one that has
	// two of a kind, consistent everywhere (gpu.json, samples over the
	// whole run, the steps' and targets' GPUs), as NVML would have
	// recorded them.
	gi := schemas.GPUInfo{Schema: schemas.GPUSchema, Available: true, DriverVersion: "550.54.15", CUDADriverVersion: "12.4", NVMLVersion: "12.550.54.15"}
	for i := range 2 {
		mem, clk, pw, on, mode := uint64(141<<30), uint32(1980), 700.0, true, "default"
		serial, bus := fmt.Sprintf("165000000%d", i), fmt.Sprintf("00000000:%02X:00.0", 0x18+i)
		gi.GPUs = append(gi.GPUs, schemas.GPUDevice{Index: i, Name: "NVIDIA H200", UUID: fmt.Sprintf("GPU-%08d-0000-0000-0000-000000000000", i),
			Serial: &serial, PCIBusID: &bus, MemoryTotalBytes: &mem, SMClockMHz: &clk, MemClockMHz: &clk, SMClockMaxMHz: &clk, MemClockMaxMHz: &clk,
			PowerLimitW: &pw, PersistenceMode: &on, ECCEnabled: &on, MIGEnabled: new(bool), ComputeMode: &mode, Processes: []schemas.GPUProcess{}})
	}
	putJSON(tb, filepath.Join(dir, "env/gpu.json"), gi)
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	must(tb, err)
	var samples bytes.Buffer
	for _, h := range tel.Host {
		for g := range 2 {
			util, used := 80.0+float64(g), uint64(100<<30)
			b, _ := json.Marshal(schemas.GPUSample{TNs: h.TNs, GPU: g, UtilPct: &util, MemUsedBytes: &used})
			samples.Write(append(b, '\n'))
		}
	}
	must(tb, os.WriteFile(filepath.Join(dir, "telemetry/gpu.jsonl"), samples.Bytes(), 0o644))
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			s[i].Notes = nil // the recorder noted the missing NVML
		}
		return s
	})
	refresh(tb, dir)
}

func putJSON(tb testing.TB, p string, v any) {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	must(tb, err)
	must(tb, os.WriteFile(p, append(b, '\n'), 0o644))
}

func getJSON(tb testing.TB, p string, v any) {
	tb.Helper()
	b, err := os.ReadFile(p)
	must(tb, err)
	must(tb, json.Unmarshal(b, v))
}

func editRun(tb testing.TB, dir string, fn func(r *schemas.Run)) {
	var r schemas.Run
	getJSON(tb, filepath.Join(dir, "run.json"), &r)
	fn(&r)
	putJSON(tb, filepath.Join(dir, "run.json"), r)
}

// editRecords rewrites one records file through fn.
func editRecords(tb testing.TB, dir, file string, fn func(recs []schemas.Record) []schemas.Record) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	must(tb, err)
	recs, err := claims.ReadRecords(p, bytes.NewReader(b))
	must(tb, err)
	var out bytes.Buffer
	for _, r := range fn(recs) {
		b, err := json.Marshal(r)
		must(tb, err)
		out.Write(append(b, '\n'))
	}
	must(tb, os.WriteFile(p, out.Bytes(), 0o644))
}

func editSteps(tb testing.TB, dir string, fn func([]schemas.StepTelemetry) []schemas.StepTelemetry) {
	tb.Helper()
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	must(tb, err)
	var out bytes.Buffer
	for _, s := range fn(tel.Steps) {
		b, err := json.Marshal(s)
		must(tb, err)
		out.Write(append(b, '\n'))
	}
	must(tb, os.WriteFile(filepath.Join(dir, "telemetry/steps.jsonl"), out.Bytes(), 0o644))
}

func editFile(tb testing.TB, dir, file string, fn func(string) string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	must(tb, err)
	must(tb, os.WriteFile(p, []byte(fn(string(b))), 0o644))
}

// refresh recomputes claims.json from the records and telemetry and
// REPORT.md from the documents, as a forger who edited the records would.
func refresh(tb testing.TB, dir string) {
	tb.Helper()
	var run schemas.Run
	getJSON(tb, filepath.Join(dir, "run.json"), &run)
	var all []schemas.Record
	files, err := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	must(tb, err)
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		must(tb, err)
		recs, err := claims.ReadRecords(f, bytes.NewReader(b))
		must(tb, err)
		all = append(all, recs...)
	}
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	must(tb, err)
	cl, err := claims.Compute(run, all, claims.WithTelemetry(tel))
	must(tb, err)
	putJSON(tb, filepath.Join(dir, "claims.json"), cl)
	writeReport(tb, dir)
}

// writeReport writes REPORT.md as benchseal run does, through renderReport.
func writeReport(tb testing.TB, dir string) {
	docs := map[string][]byte{}
	names := []string{"run.json", "claims.json", "env/gpu.json", "env/host.json"}
	probes, _ := filepath.Glob(filepath.Join(dir, "servers", "*", "probes-before.json"))
	for _, p := range probes {
		rel, _ := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
	}
	for _, n := range names {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n))); err == nil {
			docs[n] = b
		}
	}
	b, err := renderReport(docs)
	must(tb, err)
	must(tb, os.WriteFile(filepath.Join(dir, "REPORT.md"), b, 0o644))
}

// testTool is this test binary as run.json records a client (its
// SHA-256 is what makes RenderReportTool this very renderer's).
var testTool = sync.OnceValue(func() schemas.Tool {
	t, _ := fingerprint.Tool()
	return t
})

// renderReport is what the CLI gives verify as Options.RenderReport
// (cmd/benchseal renders through the same report.Markdown, from the
// same documents; the script verify_good.txt checks a real run's).
func renderReport(docs map[string][]byte) ([]byte, error) {
	in := report.Input{}
	if err := json.Unmarshal(docs["run.json"], &in.Run); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(docs["claims.json"], &in.Claims); err != nil {
		return nil, err
	}
	if b, ok := docs["env/gpu.json"]; ok {
		in.GPU = &schemas.GPUInfo{}
		json.Unmarshal(b, in.GPU)
	}
	if b, ok := docs["env/host.json"]; ok {
		in.Host = &schemas.HostInfo{}
		json.Unmarshal(b, in.Host)
	}
	var names []string
	for n := range docs {
		if strings.HasPrefix(n, "servers/") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		var sc schemas.ServerCapture
		if json.Unmarshal(docs[n], &sc) == nil {
			in.Servers = append(in.Servers, sc)
		}
	}
	var b bytes.Buffer
	err := report.Markdown(&b, in)
	return b.Bytes(), err
}

// lastStep is the records file of the run's last step (no later step can
// overlap it when its records are moved in time).
const lastStep = "records/a/c3-r2.jsonl"

// retime moves a step's measured records: fn gets them in seq order and
// the step's first measured start, and the telemetry window is set to the
// new records' (as a forger keeping steps.jsonl in line would).
func retime(tb testing.TB, dir, file string, fn func(t0 int64, m []*schemas.Record)) {
	editRecords(tb, dir, file, func(recs []schemas.Record) []schemas.Record {
		slices.SortFunc(recs, func(a, b schemas.Record) int { return a.Seq - b.Seq })
		var m []*schemas.Record
		t0 := int64(-1)
		for i := range recs {
			if recs[i].Phase == schemas.PhaseMeasure {
				m = append(m, &recs[i])
				if t0 < 0 || recs[i].StartNs < t0 {
					t0 = recs[i].StartNs
				}
			}
		}
		fn(t0, m)
		return recs
	})
	syncWindow(tb, dir, file)
}

// syncWindow sets the steps.jsonl window of a step to its records'.
func syncWindow(tb testing.TB, dir, file string) {
	var recs []schemas.Record
	editRecords(tb, dir, file, func(r []schemas.Record) []schemas.Record { recs = r; return r })
	var from, to int64 = -1, 0
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure {
			if from < 0 || r.StartNs < from {
				from = r.StartNs
			}
			to = max(to, r.EndNs)
		}
	}
	t, c, rp := stepOf(file)
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			if s[i].Target == t && s[i].Concurrency == c && s[i].Repeat == rp {
				s[i].StartNs, s[i].EndNs = from, to
			}
		}
		return s
	})
}

func stepOf(file string) (target string, conc, repeat int) {
	parts := strings.Split(file, "/")
	fmt.Sscanf(parts[2], "c%d-r%d.jsonl", &conc, &repeat)
	return parts[1], conc, repeat
}

// reVariant makes a record send another variant of its clip, every field
// re-derived (sample index, input hash, byte offset), so that check 5's
// re-derivation holds and only the schedule can tell.
func reVariant(tb testing.TB, dir string, r *schemas.Record, variant int64) {
	var run schemas.Run
	getJSON(tb, filepath.Join(dir, "run.json"), &run)
	for _, c := range run.Corpus {
		if c.ID != r.Clip {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.File)))
		must(tb, err)
		w, err := perturb.Parse(c.File, b)
		must(tb, err)
		var sum [32]byte
		hb, _ := hex.DecodeString(c.SHA256)
		copy(sum[:], hb)
		idx, err := perturb.Plan{Seed: run.Seed}.Index(sum, w.Samples(), variant)
		must(tb, err)
		v, err := perturb.NewHasher(w).Variant(idx)
		must(tb, err)
		r.Variant, r.SampleIndex, r.InputSHA256, r.ByteOffset = variant, idx, hex.EncodeToString(v.SHA256[:]), v.ByteOffset
		return
	}
	tb.Fatalf("clip %s not in run.json", r.Clip)
}

// moreKinds are kinds kept in files of their own (corpus_*_test.go), each
// registered from an init function.
var moreKinds []func() []kind

// kind is one doctored bundle and the verdict it must get.
type kind struct {
	name, class string
	check       int
	status      verify.Status
	text        string
	// doctor edits the run directory before sealing; bundle (when set)
	// changes the sealed bytes and the options instead.
	doctor func(tb testing.TB, dir string)
	bundle func(tb testing.TB, b []byte, key *ecdsa.PrivateKey) ([]byte, verify.Options)
	// assert (when set) holds the whole report to more than the check's
	// verdict: its summary, its hint, the exit rule.
	assert func(tb testing.TB, rep *verify.Report)
	// extracted (when set): the sealed bundle is unpacked into a folder,
	// as tar --zstd -xf does, edited by it, and verified there (verify.Dir).
	extracted func(tb testing.TB, dir string)
	// base (when set) is the run directory the kind doctors and seals in
	// place of the corpus's base run (the open-loop kinds: openRun).
	base func(tb testing.TB) string
}

func corpusKinds() []kind {
	measured := func(recs []schemas.Record, fn func(r *schemas.Record)) []schemas.Record {
		for i := range recs {
			if recs[i].Phase == schemas.PhaseMeasure {
				fn(&recs[i])
			}
		}
		return recs
	}
	fail, warn := verify.Fail, verify.Warn
	rewrite := func(fn func(h *tar.Header, data []byte) []byte) func(tb testing.TB, b []byte, key *ecdsa.PrivateKey) ([]byte, verify.Options) {
		return func(tb testing.TB, b []byte, key *ecdsa.PrivateKey) ([]byte, verify.Options) {
			return rewriteTar(tb, b, fn), verify.Options{PublicKey: key.Public()}
		}
	}
	raw := func(fn func(b []byte) []byte) func(tb testing.TB, b []byte, key *ecdsa.PrivateKey) ([]byte, verify.Options) {
		return func(tb testing.TB, b []byte, key *ecdsa.PrivateKey) ([]byte, verify.Options) {
			return fn(b), verify.Options{PublicKey: key.Public()}
		}
	}
	promAdd := func(file, counter string, delta float64) func(tb testing.TB, dir string) {
		return func(tb testing.TB, dir string) {
			editFile(tb, dir, file, func(s string) string { return bumpCounter(tb, s, counter, delta) })
		}
	}
	return []kind{
		// 1 archive
		{name: "skippable-frame-before", class: "archive", check: 1, status: fail, text: "skippable frame",
			bundle: raw(func(b []byte) []byte { return append(skippableFrame("not signed"), b...) })},
		{name: "skippable-frame-after", class: "archive", check: 1, status: fail, text: "not exactly one zstd frame",
			bundle: raw(func(b []byte) []byte { return append(slices.Clone(b), skippableFrame("not signed")...) })},
		{name: "second-frame-after", class: "archive", check: 1, status: fail, text: "not exactly one zstd frame",
			bundle: raw(func(b []byte) []byte {
				z, _ := zstd.NewWriter(nil)
				return append(slices.Clone(b), z.EncodeAll([]byte("more"), nil)...)
			})},
		{name: "setuid-mode", class: "archive", check: 1, status: fail, text: "mode is not 0644",
			bundle: rewrite(func(h *tar.Header, d []byte) []byte {
				if h.Name == "run.json" {
					h.Mode = 0o4644
				}
				return d
			})},
		{name: "executable-mode", class: "archive", check: 1, status: fail, text: "mode is not 0644",
			bundle: rewrite(func(h *tar.Header, d []byte) []byte {
				if h.Name == "claims.json" {
					h.Mode = 0o755
				}
				return d
			})},
		{name: "empty-file", class: "archive", check: 1, status: fail, text: "not a bundle: the file is empty",
			bundle: raw(func([]byte) []byte { return nil })},
		{name: "one-byte-flipped", class: "archive", check: 1, status: fail, text: "corrupt",
			bundle: raw(func(b []byte) []byte { b = slices.Clone(b); b[len(b)/2] ^= 0x10; return b })},
		{name: "truncated", class: "archive", check: 1, status: fail, text: "truncated",
			bundle: raw(func(b []byte) []byte { return b[:len(b)/2] })},
		{name: "symlink-entry", class: "archive", check: 1, status: fail, text: "not a regular file",
			bundle: rewrite(func(h *tar.Header, d []byte) []byte {
				if h.Name == "REPORT.md" {
					h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, "/etc/passwd", 0
					return nil
				}
				return d
			})},
		// 2 signature
		{name: "no-key-given", class: "signature", check: 2, status: verify.Unchecked, text: "not checked: this bundle needs its sealer's public key",
			bundle: func(tb testing.TB, b []byte, _ *ecdsa.PrivateKey) ([]byte, verify.Options) {
				return b, verify.Options{}
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				// Nothing was found false, yet an unchecked signature
				// proves nothing: the bundle does not verify.
				if rep.Failed != 0 || rep.Unchecked != 1 || rep.OK() {
					tb.Errorf("failed %d, unchecked %d, OK %v: want 0, 1, not OK", rep.Failed, rep.Unchecked, rep.OK())
				}
			}},
		{name: "other-key", class: "signature", check: 2, status: fail, text: "signed by a different key (sha256:",
			bundle: func(tb testing.TB, b []byte, _ *ecdsa.PrivateKey) ([]byte, verify.Options) {
				return b, verify.Options{PublicKey: testSigner(tb).PublicKey()}
			}},
		{name: "not-benchseal-statement", class: "signature", check: 2, status: fail, text: "what it signs is not a benchseal statement",
			bundle: func(tb testing.TB, b []byte, key *ecdsa.PrivateKey) ([]byte, verify.Options) {
				env := foreignEnvelope(tb, key)
				return rewriteTar(tb, b, func(h *tar.Header, d []byte) []byte {
					if h.Name == bundle.AttestationName {
						return env
					}
					return d
				}), verify.Options{PublicKey: key.Public()}
			}},
		// 5 variants: the schedule
		{name: "repeat-dropped-renumbered", class: "variants", check: 5, status: fail, text: "counted over the run in schedule order",
			doctor: func(tb testing.TB, dir string) { dropRepeatOne(tb, dir) }},
		{name: "steps-swapped", class: "variants", check: 5, status: fail, text: "counted over the run in schedule order",
			doctor: func(tb testing.TB, dir string) { swapSteps(tb, dir, "records/a/c1-r1.jsonl", "records/a/c1-r2.jsonl") }},
		{name: "clips-swapped-within-step", class: "variants", check: 5, status: fail, text: "but the schedule sends clip",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/b/c1-r1.jsonl", func(recs []schemas.Record) []schemas.Record {
					slices.SortFunc(recs, func(a, b schemas.Record) int { return a.Seq - b.Seq })
					a, b := &recs[1], &recs[2]
					a.Clip, b.Clip = b.Clip, a.Clip
					a.Variant, b.Variant = b.Variant, a.Variant
					a.SampleIndex, b.SampleIndex = b.SampleIndex, a.SampleIndex
					a.InputSHA256, b.InputSHA256 = b.InputSHA256, a.InputSHA256
					a.ByteOffset, b.ByteOffset = b.ByteOffset, a.ByteOffset
					a.Text, b.Text = b.Text, a.Text
					a.Scored, b.Scored = b.Scored, a.Scored
					return recs
				})
				refresh(tb, dir)
			}},
		{name: "variant-renumbered", class: "variants", check: 5, status: fail, text: "counted over the run in schedule order",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/b/c3-r2.jsonl", func(recs []schemas.Record) []schemas.Record {
					for i := range recs {
						if recs[i].Seq == len(recs)-1 {
							reVariant(tb, dir, &recs[i], 500)
						}
					}
					return recs
				})
				refresh(tb, dir)
			}},
		{name: "input-hash-edited", class: "variants", check: 5, status: fail, text: "input_sha256",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/a/c1-r1.jsonl", func(recs []schemas.Record) []schemas.Record {
					recs[3].InputSHA256 = strings.Repeat("ab", 32)
					return recs
				})
			}},
		// 6 claims: cache counters, REPORT.md, the numbers
		{name: "cache-hits-hidden-in-steps", class: "claims", check: 6, status: fail, text: "cache_after is {",
			doctor: func(tb testing.TB, dir string) {
				// The server answered 3 requests from its cache (its scrape
				// says so); steps.jsonl keeps the counter of before.
				promAdd("servers/b/metrics/c3-r1-after.prom", "vllm:mm_cache_hits_total", 3)(tb, dir)
			}},
		{name: "cache-after-removed", class: "claims", check: 6, status: fail, text: "they were left out",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					s[2].CacheAfter = nil
					return s
				})
				refresh(tb, dir)
			}},
		{name: "scrape-deleted", class: "claims", check: 6, status: fail, text: "there is no servers/a/metrics/c1-r1-before.prom",
			doctor: func(tb testing.TB, dir string) {
				must(tb, os.Remove(filepath.Join(dir, "servers/a/metrics/c1-r1-before.prom")))
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				c := rep.Check(verify.CheckClaims)
				if strings.Contains(c.Summary, "differ") || strings.Contains(c.Hint(), "do not trust") {
					tb.Errorf("summary %q, hint %q: claims.json matched", c.Summary, c.Hint())
				}
			}},
		// 7 protocol: a scrape of a target without cache counters (as
		// SGLang-Omni's) deleted: nothing else names the file.
		{name: "scrape-deleted-no-cache-counters", class: "protocol", check: 7, status: fail, text: "the scrape was removed after the run",
			doctor: func(tb testing.TB, dir string) {
				noCacheCounters(tb, dir, "a")
				must(tb, os.Remove(filepath.Join(dir, "servers/a/metrics/c3-r2-after.prom")))
			}},
		{name: "scrape-failure-recorded", class: "protocol", check: 7, status: warn, text: "the runner recorded that it failed",
			doctor: func(tb testing.TB, dir string) {
				noCacheCounters(tb, dir, "a")
				must(tb, os.Remove(filepath.Join(dir, "servers/a/metrics/c3-r2-after.prom")))
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					for i := range s {
						if s[i].Target == "a" && s[i].Concurrency == 3 && s[i].Repeat == 2 {
							s[i].ScrapeErrors = map[string]string{"after": "GET /metrics: context deadline exceeded"}
						}
					}
					return s
				})
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				if c := rep.Check(verify.CheckSchemas); c.Status != verify.Pass {
					tb.Errorf("schemas %s: scrape_errors must validate: %+v", c.Status, c.Findings)
				}
			}},
		// 8 fairness: what the server's counters and listing say
		{name: "mm-cache-hits-perturbed", class: "fairness", check: 8, status: fail, text: "the server answered 3 perturbed requests from its cache",
			doctor: func(tb testing.TB, dir string) { cacheHits(tb, dir, "vllm:mm_cache_hits_total", 3) },
			assert: func(tb testing.TB, rep *verify.Report) {
				if h := rep.Check(verify.CheckFairness).Hint(); strings.Contains(h, "hardware") || !strings.Contains(h, "cache") {
					tb.Errorf("hint %q", h)
				}
			}},
		{name: "mm-cache-hits-no-perturb", class: "fairness", check: 8, status: warn, text: "perturbation was off",
			doctor: func(tb testing.TB, dir string) {
				cacheHits(tb, dir, "vllm:mm_cache_hits_total", 3)
				editRun(tb, dir, func(r *schemas.Run) { r.Protocol.Perturb = false })
				writeReport(tb, dir)
			}},
		{name: "prefix-cache-tokens", class: "fairness", check: 8, status: warn, text: "reused prompt tokens (prefix caching), which a prompt prefix shared by distinct audio also counts; not requests answered from a cache",
			assert: func(tb testing.TB, rep *verify.Report) {
				// The unit comes from the engine row: token reuse is its
				// own kind, never a cache hit.
				for _, f := range rep.Check(verify.CheckFairness).Findings {
					if f.Kind == verify.KindCacheHit {
						tb.Errorf("token reuse filed as a cache hit: %s", f)
					}
					if strings.Contains(f.Reason, "prefix caching") && f.Kind != verify.KindCacheTokens {
						tb.Errorf("token reuse of kind %q", f.Kind)
					}
				}
			},
			doctor: func(tb testing.TB, dir string) {
				// Without the multimodal counter (an older vLLM), claims
				// read the prefix cache's tokens: they grow honestly.
				stripCounters(tb, dir, "b", "vllm:mm_cache_hits_total", "vllm:mm_cache_queries_total")
				cacheHits(tb, dir, "vllm:prefix_cache_hits_total", 40)
			}},
		{name: "model-unlisted", class: "fairness", check: 8, status: fail, text: "but its /v1/models listed Other/Model",
			doctor: func(tb testing.TB, dir string) { unlistModel(tb, dir, "b") },
			assert: func(tb testing.TB, rep *verify.Report) {
				if h := rep.Check(verify.CheckFairness).Hint(); strings.Contains(h, "hardware") {
					tb.Errorf("hint %q", h)
				}
			}},
		{name: "model-unlisted-allowed", class: "fairness", check: 8, status: warn, text: "the run was told to request it anyway",
			doctor: func(tb testing.TB, dir string) {
				unlistModel(tb, dir, "b")
				editRun(tb, dir, func(r *schemas.Run) { r.Command = append(r.Command, "--allow-unlisted-model") })
				editFile(tb, dir, "env/client.json", func(s string) string {
					var c map[string]any
					must(tb, json.Unmarshal([]byte(s), &c))
					c["command"] = append(c["command"].([]any), "--allow-unlisted-model")
					b, err := json.MarshalIndent(c, "", "  ")
					must(tb, err)
					return string(b) + "\n"
				})
				writeReport(tb, dir)
			}},
		{name: "scrape-garbled", class: "claims", check: 6, status: fail, text: "does not parse",
			doctor: func(tb testing.TB, dir string) {
				editFile(tb, dir, "servers/b/metrics/c1-r2-after.prom", func(s string) string { return s + "this is { not prometheus\n" })
			}},
		{name: "report-number-edited", class: "claims", check: 6, status: fail, text: "does not follow from the sealed data",
			doctor: func(tb testing.TB, dir string) {
				editFile(tb, dir, "REPORT.md", func(s string) string { return strings.Replace(s, "| a ", "| a (fastest) ", 1) })
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				// claims.json matched: the summary and the hint speak of
				// REPORT.md, never of differing values or untrusted claims.
				c := rep.Check(verify.CheckClaims)
				if strings.Contains(c.Summary, "differ") || !strings.Contains(c.Summary, "but REPORT.md does not follow from the sealed data") {
					tb.Errorf("summary %q", c.Summary)
				}
				if h := c.Hint(); strings.Contains(h, "do not trust") || !strings.Contains(h, "REPORT.md") {
					tb.Errorf("hint %q", h)
				}
			}},
		{name: "report-stale", class: "claims", check: 6, status: fail, text: "does not follow from the sealed data",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/a/c3-r1.jsonl", func(recs []schemas.Record) []schemas.Record {
					return measured(recs, func(r *schemas.Record) { r.Text, r.Scored = refs[3], refs[3] })
				})
				var run schemas.Run
				getJSON(tb, filepath.Join(dir, "run.json"), &run)
				report, _ := os.ReadFile(filepath.Join(dir, "REPORT.md"))
				refresh(tb, dir)
				must(tb, os.WriteFile(filepath.Join(dir, "REPORT.md"), report, 0o644))
			}},
		{name: "report-other-build", class: "claims", check: 6, status: warn, text: "names report rules 99, binary 00000000",
			doctor: func(tb testing.TB, dir string) {
				// Sealed by another benchseal build whose report rules
				// differ: not proven false, but not this renderer's either.
				editRun(tb, dir, func(r *schemas.Run) { r.Tool.BinarySHA256 = strings.Repeat("0", 64) })
				editFile(tb, dir, "REPORT.md", func(s string) string {
					s = strings.Replace(s, schemas.ReportRulesLine(report.RulesVersion), schemas.ReportRulesLine(99), 1)
					return strings.Replace(s, "\n", "\n\n", 1)
				})
			}},
		{name: "claims-number-edited", class: "claims", check: 6, status: fail, text: "req_per_s",
			doctor: func(tb testing.TB, dir string) {
				var c schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &c)
				c.Targets[0].Levels[1].Repeats[0].ReqPerS *= 1.25
				putJSON(tb, filepath.Join(dir, "claims.json"), c)
				writeReport(tb, dir)
			}},
		// 7 protocol: windows, server counters, closed loop, successes
		{name: "steps-window-shifted", class: "protocol", check: 7, status: fail, text: "but its records were measured over",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					s[1].StartNs -= int64(time.Second)
					return s
				})
				refresh(tb, dir)
			}},
		{name: "steps-line-deleted", class: "protocol", check: 7, status: fail, text: "has records but no line",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry { return slices.Delete(s, 3, 4) })
				refresh(tb, dir)
			}},
		{name: "steps-line-duplicated", class: "protocol", check: 7, status: fail, text: "has a second line",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry { return append(s, s[0]) })
				refresh(tb, dir)
			}},
		{name: "steps-line-invented", class: "protocol", check: 7, status: fail, text: "a step with no records file",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					x := s[0]
					x.Concurrency = 9
					return append(s, x)
				})
			}},
		{name: "records-moved-in-time", class: "protocol", check: 7, status: fail, text: "but its records were measured over",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, lastStep, func(recs []schemas.Record) []schemas.Record {
					for i := range recs {
						recs[i].StartNs += int64(time.Second)
						recs[i].EndNs += int64(time.Second)
						if recs[i].FirstByteNs != 0 {
							recs[i].FirstByteNs += int64(time.Second)
						}
					}
					return recs
				})
				refresh(tb, dir)
			}},
		{name: "server-count-short", class: "protocol", check: 7, status: fail, text: "records of requests the server never served",
			doctor: promAdd("servers/a/metrics/c1-r2-after.prom", "vllm:request_success_total", -3)},
		{name: "other-traffic", class: "protocol", check: 7, status: warn, text: "other traffic reached the server",
			doctor: promAdd("servers/b/metrics/c3-r2-after.prom", "vllm:request_success_total", 5)},
		{name: "counter-reset", class: "protocol", check: 7, status: warn, text: "the server restarted during the step",
			doctor: promAdd("servers/a/metrics/c3-r1-after.prom", "vllm:request_success_total", -1000)},
		{name: "latencies-shrunk", class: "protocol", check: 7, status: fail, text: "the records' latencies are shorter than the server's own",
			doctor: func(tb testing.TB, dir string) {
				retime(tb, dir, "records/b/c1-r2.jsonl", func(t0 int64, m []*schemas.Record) {
					for _, r := range m {
						r.EndNs = r.StartNs + (r.EndNs-r.StartNs)/3
						r.FirstByteNs = r.EndNs
					}
				})
				refresh(tb, dir)
			}},
		{name: "server-latency-sum-raised", class: "protocol", check: 7, status: fail, text: "longer than the",
			doctor: promAdd("servers/b/metrics/c1-r1-after.prom", "vllm:e2e_request_latency_seconds_sum", 5)},
		// 9 server: the stage histograms over the measured phase
		{name: "latencies-halved-resealed", class: "server", check: 9, status: fail, text: "the records' latencies are shorter than the server's own",
			doctor: func(tb testing.TB, dir string) {
				// Every measured request of the step made twice as fast, each
				// worker's closed loop kept closed, the window, claims and
				// REPORT.md recomputed: all the records' own evidence agrees.
				retime(tb, dir, lastStep, func(t0 int64, m []*schemas.Record) {
					next := map[int]int64{}
					for _, r := range m {
						if _, ok := next[r.Worker]; !ok {
							next[r.Worker] = t0
						}
						d := (r.EndNs - r.StartNs) / 2
						r.StartNs, r.EndNs, r.FirstByteNs = next[r.Worker], next[r.Worker]+d, next[r.Worker]+d/2
						next[r.Worker] += d + 50_000
					}
				})
				refresh(tb, dir)
			}},
		{name: "stage-count-short", class: "server", check: 9, status: fail, text: "records of requests the server never saw",
			doctor: func(tb testing.TB, dir string) {
				promAdd("servers/a/metrics/c3-r1-after.prom", "vllm:request_queue_time_seconds_count", -2)(tb, dir)
				refresh(tb, dir)
			}},
		{name: "stage-other-traffic", class: "server", check: 9, status: warn, text: "other traffic reached the server",
			doctor: func(tb testing.TB, dir string) {
				promAdd("servers/b/metrics/c1-r2-after.prom", "vllm:request_decode_time_seconds_count", 4)(tb, dir)
				refresh(tb, dir)
			}},
		{name: "server-block-edited", class: "claims", check: 6, status: fail, text: ".server.stages[0].mean_s",
			doctor: func(tb testing.TB, dir string) {
				var cl schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
				st := &cl.Targets[0].Levels[0].Repeats[0].Server.Stages[0]
				st.MeanS = ptrTo(*st.MeanS + 0.5)
				putJSON(tb, filepath.Join(dir, "claims.json"), cl)
				writeReport(tb, dir)
			}},
		{name: "server-block-dropped", class: "claims", check: 6, status: fail, text: "repeats[r=1].server.",
			doctor: func(tb testing.TB, dir string) {
				var cl schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
				cl.Targets[0].Levels[0].Repeats[0].Server = nil
				putJSON(tb, filepath.Join(dir, "claims.json"), cl)
				writeReport(tb, dir)
			}},
		// A claims.json sealed by a build before the server block: not
		// compared (WARN), never called missing; check 9 still holds the
		// scrapes to the records.
		{name: "server-blocks-predate", class: "claims", check: 6, status: warn, text: "has no server block (not computed by the build that sealed it)",
			doctor: func(tb testing.TB, dir string) {
				var cl schemas.Claims
				getJSON(tb, filepath.Join(dir, "claims.json"), &cl)
				for i := range cl.Targets {
					for j := range cl.Targets[i].Levels {
						for k := range cl.Targets[i].Levels[j].Repeats {
							cl.Targets[i].Levels[j].Repeats[k].Server = nil
						}
					}
				}
				putJSON(tb, filepath.Join(dir, "claims.json"), cl)
				writeReport(tb, dir)
			}},
		{name: "two-of-three-workers", class: "protocol", check: 7, status: fail, text: "a step done by fewer workers than its concurrency",
			doctor: func(tb testing.TB, dir string) {
				retime(tb, dir, lastStep, func(t0 int64, m []*schemas.Record) {
					next := [2]int64{t0, t0}
					for i, r := range m {
						w, d := i%2, r.EndNs-r.StartNs
						r.Worker, r.StartNs, r.EndNs, r.FirstByteNs = w, next[w], next[w]+d, next[w]+d/2
						next[w] += d + 50_000
					}
				})
				refresh(tb, dir)
			}},
		{name: "dispatch-gap", class: "protocol", check: 7, status: fail, text: "a closed-loop worker sends its next request as soon as",
			doctor: func(tb testing.TB, dir string) {
				retime(tb, dir, lastStep, func(t0 int64, m []*schemas.Record) {
					for _, r := range m[3:] {
						if r.Worker == m[0].Worker {
							d := int64(200 * time.Millisecond)
							r.StartNs, r.EndNs, r.FirstByteNs = r.StartNs+d, r.EndNs+d, r.FirstByteNs+d
						}
					}
				})
				refresh(tb, dir)
			}},
		{name: "measured-request-deleted", class: "protocol", check: 7, status: fail, text: "measured requests, the protocol says 6",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/b/c3-r1.jsonl", func(recs []schemas.Record) []schemas.Record { return recs[:len(recs)-1] })
				syncWindow(tb, dir, "records/b/c3-r1.jsonl")
				refresh(tb, dir)
			}},
		{name: "all-failed", class: "protocol", check: 7, status: warn, text: "none of the 6 measured requests succeeded",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/a/c1-r1.jsonl", func(recs []schemas.Record) []schemas.Record {
					return measured(recs, func(r *schemas.Record) {
						r.OK, r.Status, r.ErrorClass, r.Text, r.Scored = false, 500, "http_5xx", "", ""
					})
				})
				refresh(tb, dir)
			}},
		{name: "one-failed", class: "protocol", check: 7, status: warn, text: "claims count successes only",
			doctor: func(tb testing.TB, dir string) {
				editRecords(tb, dir, "records/b/c1-r2.jsonl", func(recs []schemas.Record) []schemas.Record {
					r := &recs[len(recs)-1]
					r.OK, r.Status, r.ErrorClass, r.Text, r.Scored = false, 500, "http_5xx", "", ""
					return recs
				})
				refresh(tb, dir)
			}},
		{name: "samples-after-last-step", class: "protocol", check: 7, status: warn, text: "were steps left out at the end of the run",
			doctor: func(tb testing.TB, dir string) {
				// What steps dropped from the end leave behind when the
				// telemetry is not trimmed with them: samples long after.
				tel, err := claims.LoadTelemetry(os.DirFS(dir))
				must(tb, err)
				h := tel.Host[len(tel.Host)-1]
				h.TNs += int64(10 * time.Minute)
				b, _ := json.Marshal(h)
				editFile(tb, dir, "telemetry/host.jsonl", func(s string) string { return s + string(b) + "\n" })
			}},
		// 8 fairness and environment
		{name: "gpu-sample-other-device", class: "environment", check: 8, status: fail, text: "which env/gpu.json does not list",
			doctor: func(tb testing.TB, dir string) {
				editFile(tb, dir, "telemetry/gpu.jsonl", func(s string) string { return strings.Replace(s, `"gpu":1`, `"gpu":7`, 1) })
				refresh(tb, dir)
			}},
		{name: "gpu-json-device-removed", class: "environment", check: 8, status: fail, text: "which env/gpu.json does not list",
			doctor: func(tb testing.TB, dir string) {
				var g schemas.GPUInfo
				getJSON(tb, filepath.Join(dir, "env/gpu.json"), &g)
				g.GPUs = g.GPUs[:1]
				putJSON(tb, filepath.Join(dir, "env/gpu.json"), g)
				writeReport(tb, dir)
			}},
		{name: "steps-gpus-edited", class: "environment", check: 8, status: fail, text: "but run.json gives",
			doctor: func(tb testing.TB, dir string) {
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					for i := range s {
						if s[i].Target == "b" {
							s[i].GPUs = []int{0}
						}
					}
					return s
				})
				refresh(tb, dir)
			}},
		{name: "target-gpus-edited", class: "environment", check: 8, status: fail, text: "its recorded command line gave --gpu",
			doctor: func(tb testing.TB, dir string) {
				editRun(tb, dir, func(r *schemas.Run) { r.Targets[1].GPUs = []int{0} })
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					for i := range s {
						if s[i].Target == "b" {
							s[i].GPUs = []int{0}
						}
					}
					return s
				})
				refresh(tb, dir)
			}},
		{name: "client-command-edited", class: "environment", check: 8, status: fail, text: "is not run.json's",
			doctor: func(tb testing.TB, dir string) {
				editFile(tb, dir, "env/client.json", func(s string) string { return strings.Replace(s, `"--repeats"`, `"--passes"`, 1) })
			}},
		{name: "model-renamed", class: "environment", check: 8, status: fail, text: "but its /v1/models listed",
			doctor: func(tb testing.TB, dir string) {
				editRun(tb, dir, func(r *schemas.Run) { r.Targets[0].Model = "openai/whisper-large-v3" })
				refresh(tb, dir)
			}},
		{name: "extra-server-file", class: "environment", check: 8, status: warn, text: "not a file the run captures",
			doctor: func(tb testing.TB, dir string) {
				must(tb, os.WriteFile(filepath.Join(dir, "servers/a/server_info.json"), []byte(`{"max_num_seqs": 256}`+"\n"), 0o644))
			}},
		{name: "extra-scrape", class: "environment", check: 8, status: warn, text: "not a file the run captures",
			doctor: func(tb testing.TB, dir string) {
				b, err := os.ReadFile(filepath.Join(dir, "servers/a/metrics/c1-r1-before.prom"))
				must(tb, err)
				must(tb, os.WriteFile(filepath.Join(dir, "servers/a/metrics/c16-r1-before.prom"), b, 0o644))
			}},
		// The server as a second witness, request by request: its spans.
		{name: "latency-lowered-under-spans", class: "events", check: verify.CheckEvents, status: fail, text: "the record's latency is shorter than the server's own",
			doctor: func(tb testing.TB, dir string) {
				// A tenth off every measured latency of one step, or off the
				// server's own e2e for it where a busy host's client took
				// longer than that (a tenth off its own latency would then
				// still cover the server's), claims recomputed: the sums
				// stay plausible, each request is now shorter than the
				// server's own e2e for it.
				e2e := map[string]int64{}
				b, err := os.ReadFile(filepath.Join(dir, schemas.StagesPath("a", 3, 1)))
				must(tb, err)
				for line := range strings.Lines(string(b)) {
					var l schemas.RequestStages
					must(tb, json.Unmarshal([]byte(line), &l))
					if l.E2ES != nil {
						e2e[l.RequestID] = int64(*l.E2ES * 1e9)
					}
				}
				if len(e2e) == 0 {
					tb.Fatal("a's c3-r1 stages file holds no joined e2e times")
				}
				retime(tb, dir, "records/a/c3-r1.jsonl", func(t0 int64, m []*schemas.Record) {
					for _, r := range m {
						d := r.EndNs - r.StartNs
						if s, ok := e2e[r.RequestID]; ok {
							d = min(d, s)
						}
						r.EndNs = r.StartNs + d*9/10
						r.FirstByteNs = min(r.FirstByteNs, r.EndNs)
					}
				})
				refresh(tb, dir)
			}},
		{name: "stages-file-edited", class: "events", check: verify.CheckEvents, status: fail, text: "do not follow from the server's sealed evidence",
			doctor: func(tb testing.TB, dir string) {
				editFile(tb, dir, schemas.StagesPath("b", 1, 2), func(s string) string {
					return regexp.MustCompile(`"e2e_s":[0-9.]+`).ReplaceAllString(s, `"e2e_s":0.001`)
				})
			}},
		{name: "spans-removed", class: "events", check: verify.CheckEvents, status: fail, text: "records of requests the server never saw",
			doctor: func(tb testing.TB, dir string) {
				// The OTLP exports and the stages file of a step that the
				// server's evidence does not back: a fabricated step.
				editFile(tb, dir, schemas.StagesPath("a", 1, 1), func(string) string { return "" })
				files, _ := filepath.Glob(filepath.Join(dir, "servers/a/otlp/*.binpb"))
				for _, f := range files {
					must(tb, os.Remove(f))
				}
				// Without exports every step of a is unbacked; keep the
				// others' stage files consistent by emptying them too.
				stages, _ := filepath.Glob(filepath.Join(dir, "servers/a/stages/*.jsonl"))
				for _, f := range stages {
					must(tb, os.WriteFile(f, nil, 0o644))
				}
			}},
	}
}

// cacheHits makes the server of target b count hits of a cache counter
// during step c=3 repeat 1: its scrape after, the step's cache_after and
// the claims recomputed, as an honest run against a caching server
// records them.
func cacheHits(tb testing.TB, dir, counter string, n float64) {
	editFile(tb, dir, "servers/b/metrics/c3-r1-after.prom", func(s string) string { return bumpCounter(tb, s, counter, n) })
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			if s[i].Target == "b" && s[i].Concurrency == 3 && s[i].Repeat == 1 {
				s[i].CacheAfter[counter] += n
			}
		}
		return s
	})
	refresh(tb, dir)
}

// stripCounters takes counters out of a target's scrapes and steps.jsonl
// lines, as a server that does not expose them would have them recorded.
func stripCounters(tb testing.TB, dir, target string, names ...string) {
	files, err := filepath.Glob(filepath.Join(dir, "servers", target, "metrics", "*.prom"))
	must(tb, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		must(tb, err)
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			drop := false
			for _, n := range names {
				drop = drop || strings.HasPrefix(l, n+"{") || strings.HasPrefix(l, n+" ") || strings.HasSuffix(l, " "+n+" counter") || strings.Contains(l, " "+n+" ")
			}
			if !drop {
				keep = append(keep, l)
			}
		}
		must(tb, os.WriteFile(f, []byte(strings.Join(keep, "\n")), 0o644))
	}
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			if s[i].Target != target {
				continue
			}
			for _, n := range names {
				delete(s[i].CacheBefore, n)
				delete(s[i].CacheAfter, n)
			}
			if len(s[i].CacheBefore) == 0 {
				s[i].CacheBefore = nil
			}
			if len(s[i].CacheAfter) == 0 {
				s[i].CacheAfter = nil
			}
		}
		return s
	})
	refresh(tb, dir)
}

// noCacheCounters makes a target's scrapes and steps.jsonl lines those of
// a server without cache counters (SGLang-Omni's): only the request
// counter and its histogram remain to cross-check.
func noCacheCounters(tb testing.TB, dir, target string) {
	stripCounters(tb, dir, target, engine.CacheCounterNames...)
}

// unlistModel makes target's /v1/models (probes before and after) list
// another model than the one run.json says it served.
func unlistModel(tb testing.TB, dir, target string) {
	var run schemas.Run
	getJSON(tb, filepath.Join(dir, "run.json"), &run)
	model := ""
	for _, t := range run.Targets {
		if t.Name == target {
			model = t.Model
		}
	}
	if model == "" {
		tb.Fatalf("target %s names no model", target)
	}
	for _, when := range []string{"before", "after"} {
		file := path.Join("servers", target, "probes-"+when+".json")
		editFile(tb, dir, file, func(s string) string {
			var sc schemas.ServerCapture
			must(tb, json.Unmarshal([]byte(s), &sc))
			for i, p := range sc.Probes {
				if p.Path == "/v1/models" {
					sc.Probes[i].Body = strings.ReplaceAll(p.Body, strconv.Quote(model), `"Other/Model"`)
				}
			}
			b, err := json.MarshalIndent(sc, "", "  ")
			must(tb, err)
			return string(b) + "\n"
		})
	}
	writeReport(tb, dir)
}

// bumpCounter adds delta to every sample of a counter (or of a histogram's
// _sum line) in a Prometheus text scrape.
func bumpCounter(tb testing.TB, s, name string, delta float64) string {
	lines := strings.Split(s, "\n")
	found := false
	for i, l := range lines {
		if !strings.HasPrefix(l, name+"{") && !strings.HasPrefix(l, name+" ") {
			continue
		}
		j := strings.LastIndexByte(l, ' ')
		var v float64
		fmt.Sscan(l[j+1:], &v)
		lines[i] = fmt.Sprintf("%s %g", l[:j], v+delta)
		found = true
		break // one series: a counter summed over label sets moves by delta
	}
	if !found {
		tb.Fatalf("no %s in the scrape", name)
	}
	return strings.Join(lines, "\n")
}

// dropRepeatOne takes repeat 1 out of the run and renames repeat 2 to 1,
// everywhere a step is named: records (and their repeat field), steps.jsonl,
// the scrapes, run.json's repeats; then claims and REPORT.md.
func dropRepeatOne(tb testing.TB, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*", "*-r1.jsonl"))
	for _, f := range files {
		must(tb, os.Remove(f))
		r2 := strings.TrimSuffix(f, "-r1.jsonl") + "-r2.jsonl"
		must(tb, os.Rename(r2, f))
		rel, _ := filepath.Rel(dir, f)
		editRecords(tb, dir, filepath.ToSlash(rel), func(recs []schemas.Record) []schemas.Record {
			for i := range recs {
				recs[i].Repeat = 1
			}
			return recs
		})
	}
	proms, _ := filepath.Glob(filepath.Join(dir, "servers", "*", "metrics", "*-r1-*.prom"))
	for _, p := range proms {
		must(tb, os.Remove(p))
		must(tb, os.Rename(strings.Replace(p, "-r1-", "-r2-", 1), p))
	}
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		var out []schemas.StepTelemetry
		for _, x := range s {
			if x.Repeat == 2 {
				x.Repeat = 1
				out = append(out, x)
			}
		}
		return out
	})
	editRun(tb, dir, func(r *schemas.Run) { r.Protocol.Repeats = 1 })
	refresh(tb, dir)
}

// swapSteps exchanges the records of two steps of one target and level
// (their repeat fields follow their files), and everything named after
// them: steps.jsonl windows and the scrapes.
func swapSteps(tb testing.TB, dir, f1, f2 string) {
	p1, p2 := filepath.Join(dir, f1), filepath.Join(dir, f2)
	tmp := p1 + ".tmp"
	must(tb, os.Rename(p1, tmp))
	must(tb, os.Rename(p2, p1))
	must(tb, os.Rename(tmp, p2))
	for _, f := range []string{f1, f2} {
		_, _, rp := stepOf(f)
		editRecords(tb, dir, f, func(recs []schemas.Record) []schemas.Record {
			for i := range recs {
				recs[i].Repeat = rp
			}
			return recs
		})
		syncWindow(tb, dir, f)
	}
	t, c, r1 := stepOf(f1)
	_, _, r2 := stepOf(f2)
	for _, when := range []string{"before", "after"} {
		a := filepath.Join(dir, "servers", t, "metrics", fmt.Sprintf("c%d-r%d-%s.prom", c, r1, when))
		b := filepath.Join(dir, "servers", t, "metrics", fmt.Sprintf("c%d-r%d-%s.prom", c, r2, when))
		must(tb, os.Rename(a, a+".tmp"))
		must(tb, os.Rename(b, a))
		must(tb, os.Rename(a+".tmp", b))
	}
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			if s[i].Target == t && s[i].Concurrency == c {
				// cache counters travel with their scrapes
				switch s[i].Repeat {
				case r1:
					s[i].Repeat = r2
				case r2:
					s[i].Repeat = r1
				}
			}
		}
		return s
	})
	for _, f := range []string{f1, f2} {
		syncWindow(tb, dir, f)
	}
	refresh(tb, dir)
}

// skippableFrame is a zstd skippable frame (RFC 8878, 3.1.2).
func skippableFrame(data string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2A5E)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// foreignEnvelope is a valid DSSE signature, by key, over an in-toto
// statement of another kind (SLSA provenance), not benchseal's.
func foreignEnvelope(tb testing.TB, key *ecdsa.PrivateKey) []byte {
	sv, err := signature.LoadECDSASignerVerifier(key, crypto.SHA256)
	must(tb, err)
	payload := []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"` + strings.Repeat("0", 64) + `"}}],"predicateType":"https://slsa.dev/provenance/v1","predicate":{}}`)
	env, err := sigdsse.WrapSigner(sv, bundle.PayloadType).SignMessage(bytes.NewReader(payload))
	must(tb, err)
	return env
}

// TestCorpusBase: the undoctored run verifies with every check PASS, so
// that every verdict of the corpus comes from its one edit.
func TestCorpusBase(t *testing.T) {
	dir := full.get(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	must(t, err)
	s, err := bundle.NewSigner(key)
	must(t, err)
	rep, err := verify.Bundle(context.Background(), bytes.NewReader(seal(t, dir, s, bundle.SealOptions{})), verify.Options{PublicKey: key.Public(), RenderReport: renderReport, RenderReportTool: testTool().BinarySHA256})
	must(t, err)
	for _, c := range rep.Checks {
		want := verify.Pass
		if c.ID == verify.CheckTimestamps {
			want = verify.Skip // not pre-registered: timestamps_test.go stamps a copy
		}
		if c.Status != want && (want != verify.Pass || !onlyNotSteady(c)) {
			b, _ := json.MarshalIndent(c, "", "  ")
			t.Errorf("check %d of the base run: %s, want %s\n%s", c.ID, c.Status, want, b)
		}
	}
}

// TestCorpus verifies every doctored kind and requires the check and the
// verdict it names, with a finding that says so.
func TestCorpus(t *testing.T) {
	base := full.get(t)
	kinds := append(corpusKinds(), thirdPassKinds()...)
	for _, more := range moreKinds {
		kinds = append(kinds, more()...)
	}
	if len(kinds) < 40 {
		t.Fatalf("%d kinds, want at least 40", len(kinds))
	}
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k.name] {
			t.Fatalf("kind %s twice", k.name)
		}
		seen[k.name] = true
	}
	if *corpusOut != "" {
		must(t, os.MkdirAll(*corpusOut, 0o755))
	}
	var mu sync.Mutex
	caught := map[string]int{}
	total := map[string]int{}
	t.Run("kinds", func(t *testing.T) {
		for _, k := range kinds {
			t.Run(k.name, func(t *testing.T) {
				t.Parallel()
				dir := filepath.Join(t.TempDir(), "run")
				if k.base != nil {
					copyDir(t, k.base(t), dir)
				} else {
					copyDir(t, base, dir)
				}
				if k.doctor != nil {
					k.doctor(t, dir)
				}
				key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
				must(t, err)
				s, err := bundle.NewSigner(key)
				must(t, err)
				b := seal(t, dir, s, bundle.SealOptions{})
				opts := verify.Options{PublicKey: key.Public()}
				if k.bundle != nil {
					b, opts = k.bundle(t, b, key)
				}
				opts.RenderReport, opts.RenderReportTool, opts.RenderReportRules = renderReport, testTool().BinarySHA256, report.RulesVersion
				if *corpusOut != "" {
					writeKind(t, k, b, s)
				}
				var rep *verify.Report
				if k.extracted != nil {
					x := filepath.Join(t.TempDir(), "x")
					extractBundle(t, b, x)
					k.extracted(t, x)
					rep, err = verify.Dir(context.Background(), x, opts)
				} else {
					rep, err = verify.Bundle(context.Background(), bytes.NewReader(b), opts)
				}
				must(t, err)
				c := rep.Check(k.check)
				ok := c.Status == k.status
				found := false
				for _, f := range c.Findings {
					found = found || (f.Status == k.status && strings.Contains(f.Reason, k.text))
				}
				mu.Lock()
				total[k.class]++
				if ok && found {
					caught[k.class]++
				}
				mu.Unlock()
				if !ok || !found {
					dump, _ := json.MarshalIndent(rep.Checks, "", "  ")
					t.Errorf("%s: check %d is %s, want %s with a finding %q\n%s", k.name, k.check, c.Status, k.status, k.text, dump)
				}
				if k.assert != nil {
					k.assert(t, rep)
				}
			})
		}
	})
	n, all := 0, 0
	var lines []string
	for _, class := range sortedClassKeys(total) {
		n += caught[class]
		all += total[class]
		lines = append(lines, fmt.Sprintf("%-12s %d of %d", class, caught[class], total[class]))
	}
	t.Logf("doctored kinds caught by the right check with the right verdict: %d of %d\n%s", n, all, strings.Join(lines, "\n"))
}

func sortedClassKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// writeKind writes a doctored bundle, the public key that verifies it and
// what verify must say into -corpus DIR.
func writeKind(tb testing.TB, k kind, b []byte, s *bundle.Signer) {
	d := filepath.Join(*corpusOut, k.name)
	must(tb, os.MkdirAll(d, 0o755))
	must(tb, os.WriteFile(filepath.Join(d, "evidence.tar.zst"), b, 0o644))
	pem, err := cryptoutils.MarshalPublicKeyToPEM(s.PublicKey())
	must(tb, err)
	must(tb, os.WriteFile(filepath.Join(d, "key.pub"), pem, 0o644))
	expect := fmt.Sprintf("expect: check %d %s: %s\nclass: %s\n", k.check, k.status, k.text, k.class)
	must(tb, os.WriteFile(filepath.Join(d, "EXPECT"), []byte(expect), 0o644))
}

func ptrTo[T any](v T) *T { return &v }
