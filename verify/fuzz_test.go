package verify_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/verify"
)

// fuzzLimits keep a fuzzed archive cheap.
var fuzzLimits = bundle.Limits{MaxEntries: 64, MaxEntrySize: 1 << 20, MaxTotalSize: 4 << 20,
	MaxWindow: 1 << 20, MaxDecoderMemory: 16 << 20, MaxRatio: 100, RatioAfter: 1 << 20}

// checkInvariants holds for any input: every check in order, counts that
// add up, and nothing trusted after an unsafe archive.
func checkInvariants(t *testing.T, rep *verify.Report) {
	if len(rep.Checks) != len(verify.Checklist()) {
		t.Fatalf("%d checks", len(rep.Checks))
	}
	n := [5]int{}
	for i, c := range rep.Checks {
		if c.ID != i+1 || c.Summary == "" {
			t.Fatalf("check %d: id %d summary %q", i+1, c.ID, c.Summary)
		}
		n[c.Status]++
		for _, f := range c.Findings {
			if f.Status > c.Status {
				t.Fatalf("check %d is %s with a %s finding", c.ID, c.Status, f.Status)
			}
		}
	}
	if n != [5]int{rep.Passed, rep.Skipped, rep.Warned, rep.Unchecked, rep.Failed} || rep.OK() != (rep.Failed == 0 && rep.Unchecked == 0) {
		t.Fatalf("counts %v vs %+v", n, rep)
	}
	if rep.Kind == "bundle" && rep.Checks[0].Status == verify.Fail && (rep.Failed != 1 || rep.Skipped != len(rep.Checks)-1) {
		t.Fatalf("refused archive, yet %d checks fail and %d are skipped (want 1 and %d)", rep.Failed, rep.Skipped, len(rep.Checks)-1)
	}
}

// FuzzBundle feeds verify.Bundle arbitrary bytes, seeded from the test
// vectors (good, damaged and hostile bundles).
func FuzzBundle(f *testing.F) {
	seeds := 0
	for _, v := range vectors() {
		switch v.name {
		case "good", "embedded-key", "record-edited", "extra-file", "symlink", "dotdot", "truncated", "not-zstd", "no-audio":
			b, _ := v.make(f)
			f.Add(b)
			seeds++
		}
	}
	if seeds == 0 {
		f.Fatal("no seeds")
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := verify.Bundle(context.Background(), bytes.NewReader(b), verify.Options{Limits: fuzzLimits, MemoryLimit: 16 << 10, TempDir: t.TempDir()})
		if err != nil {
			t.Fatalf("Bundle returned an error for in-memory input: %v", err)
		}
		checkInvariants(t, rep)
	})
}

// FuzzRecords puts arbitrary bytes in place of one records file of a real
// run and verifies the directory: the record decoding, variant, claims and
// protocol checks must report, never panic.
func FuzzRecords(f *testing.F) {
	_, src := good.get(f)
	name := filepath.Join("records", "a", "c3-r1.jsonl")
	b, err := os.ReadFile(filepath.Join(src, name))
	must(f, err)
	f.Add(b)
	f.Add(b[:len(b)-20])
	f.Add(bytes.Replace(b, []byte(`"phase":"measure"`), []byte(`"phase":"warmup"`), 2))
	f.Add(bytes.Replace(b, []byte(`"variant":`), []byte(`"variant":1`), -1))
	f.Add([]byte("{}\n{\"target\":\"a\"}\n"))
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, recs []byte) {
		dir, err := os.MkdirTemp(base, "run-")
		must(t, err)
		defer os.RemoveAll(dir)
		copyDir(t, src, dir)
		must(t, os.WriteFile(filepath.Join(dir, name), recs, 0o644))
		rep, err := verify.Dir(context.Background(), dir, verify.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, rep)
	})
}
