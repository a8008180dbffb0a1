package verify_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/verify"
)

// TestMemoryFlatInAudio verifies two runs that differ only in how long
// their clips are (the same records) and compares what verify.Bundle
// allocates: beyond Options.MemoryLimit the audio goes to disk and is read
// back clip by clip into reused buffers, so four times the audio must not
// cost anything like four times the memory. Allocated bytes (not time, nor
// the resident set, which other tests in the binary disturb) are counted,
// and both runs are above the zstd window (4 MiB), whose buffer grows with
// the stream up to it.
func TestMemoryFlatInAudio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 25 MB of runs")
	}
	alloc := func(seconds float64) (audio int64, allocated uint64) {
		spec := runSpec{Clips: 16, Seconds: seconds, Levels: []int{2}, Requests: []int{16}, Repeats: 1}
		base := t.TempDir()
		corpus, run := filepath.Join(base, "corpus"), filepath.Join(base, "run")
		must(t, os.Mkdir(corpus, 0o755))
		makeRun(t, spec, corpus, run)
		ins, err := filepath.Glob(filepath.Join(run, "inputs", "*"))
		must(t, err)
		for _, p := range ins {
			fi, err := os.Stat(p)
			must(t, err)
			audio += fi.Size()
		}
		s := testSigner(t)
		data := seal(t, run, s, bundle.SealOptions{})
		opts := verify.Options{PublicKey: s.PublicKey(), MemoryLimit: 1 << 20, TempDir: t.TempDir()}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := verify.Bundle(context.Background(), bytes.NewReader(data), opts)
		runtime.ReadMemStats(&after)
		must(t, err)
		if rep.Failed != 0 {
			t.Fatalf("%d checks failed", rep.Failed)
		}
		return audio, after.TotalAlloc - before.TotalAlloc
	}
	shortAudio, shortAlloc := alloc(10)
	longAudio, longAlloc := alloc(40)
	t.Logf("audio %d -> %d bytes; allocated %d -> %d bytes", shortAudio, longAudio, shortAlloc, longAlloc)
	if grew := int64(longAlloc) - int64(shortAlloc); grew > (longAudio-shortAudio)/4 {
		t.Errorf("%d more bytes of audio cost %d more bytes allocated; want under a quarter of it", longAudio-shortAudio, grew)
	}
}
