package verify_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// retimeLastStep rewrites the measured records of the run's last step
// (so that no later step can overlap it) through fn, which gets them in
// seq order with the step's first measured start, and recomputes
// claims.json from the records, as the runner would have written it.
func retimeLastStep(t testing.TB, dir string, fn func(t0 int64, meas []*schemas.Record)) {
	t.Helper()
	var last string
	var lastEnd int64
	var all []schemas.Record
	files, err := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	must(t, err)
	byFile := map[string][]schemas.Record{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		must(t, err)
		recs, err := claims.ReadRecords(f, bytes.NewReader(b))
		must(t, err)
		byFile[f] = recs
		for _, r := range recs {
			if r.EndNs > lastEnd {
				last, lastEnd = f, r.EndNs
			}
		}
	}
	recs := byFile[last]
	slices.SortFunc(recs, func(a, b schemas.Record) int { return a.Seq - b.Seq })
	var meas []*schemas.Record
	t0 := int64(-1)
	for i := range recs {
		if recs[i].Phase == schemas.PhaseMeasure {
			meas = append(meas, &recs[i])
			if t0 < 0 || recs[i].StartNs < t0 {
				t0 = recs[i].StartNs
			}
		}
	}
	fn(t0, meas)
	var out bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		must(t, err)
		out.Write(append(b, '\n'))
	}
	must(t, os.WriteFile(last, out.Bytes(), 0o644))
	for _, f := range files {
		if f == last {
			all = append(all, recs...)
		} else {
			all = append(all, byFile[f]...)
		}
	}
	var run schemas.Run
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	must(t, err)
	must(t, json.Unmarshal(b, &run))
	tel, err := claims.LoadTelemetry(os.DirFS(dir))
	must(t, err)
	cl, err := claims.Compute(run, all, claims.WithTelemetry(tel))
	must(t, err)
	nb, err := json.MarshalIndent(cl, "", "  ")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "claims.json"), append(nb, '\n'), 0o644))
}

// span sets a record's times, in milliseconds after t0, and its worker.
func span(r *schemas.Record, t0 int64, worker int, startMs, endMs float64) {
	ms := func(x float64) int64 { return t0 + int64(x*float64(time.Millisecond)) }
	r.Worker, r.StartNs, r.EndNs = worker, ms(startMs), ms(endMs)
	r.FirstByteNs = (r.StartNs + r.EndNs) / 2
}

// fastServer is the last step (c=3, 4 measured requests) as a server that
// answers within a millisecond makes it: worker 0 finishes its first
// request before worker 2 sends its first, so at most 2 are in flight at
// once, and no worker is ever idle while a request is left.
func fastServer(t0 int64, m []*schemas.Record) {
	span(m[0], t0, 0, 0, 1)
	span(m[1], t0, 1, 0.1, 1.5)
	span(m[2], t0, 0, 1.1, 2)
	span(m[3], t0, 2, 1.6, 2.5)
}

func protocolVectors() []vector {
	retimed := func(fn func(int64, []*schemas.Record)) func(t testing.TB) ([]byte, verify.Options) {
		return sealed(func(t testing.TB) string {
			return damagedRun(t, func(dir string) { retimeLastStep(t, dir, fn) })
		}, bundle.SealOptions{}, "pinned")
	}
	return []vector{
		{name: "fast-server", expect: "peak in-flight 2 at c=3 because the server answered before the last worker started: WARN, not FAIL",
			make: retimed(fastServer),
			warn: []int{7}, pass: []int{1, 2, 3, 4, 5, 6}, finding: 7, text: "peak in-flight 2 of 4 measured requests at concurrency 3: the server answered requests before every worker had sent its first"},
		{name: "idle-worker", expect: "peak in-flight 2 at c=3 while workers 0 and 1 sat idle for 28 ms with a request left: FAIL",
			make: retimed(func(t0 int64, m []*schemas.Record) {
				fastServer(t0, m)
				span(m[3], t0, 2, 30, 31)
			}),
			fail: []int{7}, pass: []int{1, 2, 3, 4, 5, 6}, finding: 7, text: "worker 0 was idle from"},
		{name: "more-than-c", expect: "4 requests in flight at c=3: FAIL",
			make: retimed(func(t0 int64, m []*schemas.Record) {
				for i, r := range m {
					span(r, t0, i%3, float64(i)*0.1, 5)
				}
			}),
			fail: []int{7}, pass: []int{1, 2, 3, 4, 5, 6}, finding: 7, text: "peak in-flight 4 in the measure phase, more than the concurrency 3"},
		{name: "spilled", expect: "every file spilled to disk (MemoryLimit 1 byte): the same verdicts as in memory",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(goodDir, bundle.SealOptions{}, "pinned")(t)
				o.MemoryLimit, o.TempDir = 1, t.TempDir()
				return b, o
			},
			pass: []int{1, 2, 3, 4, 5, 6, 7}, warn: []int{8}},
		{name: "clip-changed-resealed-spilled", expect: "a clip changed and re-sealed, read back from disk: its digest is not run.json's",
			make: func(t testing.TB) ([]byte, verify.Options) {
				b, o := sealed(func(t testing.TB) string {
					return damagedRun(t, func(dir string) { flipClipByte(t, dir) })
				}, bundle.SealOptions{}, "pinned")(t)
				o.MemoryLimit, o.TempDir = 1, t.TempDir()
				return b, o
			},
			fail: []int{5}, pass: []int{1, 2, 3, 4, 6, 7}, finding: 5, text: "run.json says"},
	}
}

// flipClipByte changes one sample byte of the run's first clip.
func flipClipByte(t testing.TB, dir string) {
	t.Helper()
	clips, err := fs.Glob(os.DirFS(dir), "inputs/*.wav")
	must(t, err)
	if len(clips) == 0 {
		t.Fatal("no clips in the run")
	}
	p := filepath.Join(dir, clips[0])
	b, err := os.ReadFile(p)
	must(t, err)
	b[len(b)-10] ^= 1
	must(t, os.WriteFile(p, b, 0o644))
}

// TestDirClipChanged: a run directory's clip is hashed (no reader digest
// there) and compared with run.json.
func TestDirClipChanged(t *testing.T) {
	dir := damagedRun(t, func(dir string) { flipClipByte(t, dir) })
	rep, err := verify.Dir(t.Context(), dir, verify.Options{})
	must(t, err)
	c := rep.Check(verify.CheckVariants)
	found := false
	for _, f := range c.Findings {
		found = found || bytes.Contains([]byte(f.Reason), []byte("run.json says"))
	}
	if c.Status != verify.Fail || !found {
		t.Errorf("check 5 %s, findings %+v: want FAIL for the changed clip", c.Status, c.Findings)
	}
}
