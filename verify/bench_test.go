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

// audioHeavy is a run whose bundle is mostly audio: 8 clips of 10 s
// (2.5 MiB of WAV) and 2 targets × 2 levels × 2 repeats of 32 requests,
// 320 records in all, each of which re-derives a variant (hashing its
// whole clip).
var audioHeavy = runSpec{Clips: 8, Seconds: 10, Levels: []int{4, 8}, Requests: []int{32}, Repeats: 2}

// BenchmarkBundle is verify throughput in bundle bytes per second; the
// records/s metric shows the cost per record.
func BenchmarkBundle(b *testing.B) { benchmarkBundle(b, 0) }

// BenchmarkBundleSpilled is BenchmarkBundle with every file spilled to
// disk and read back (Options.MemoryLimit of one byte), as the audio of a
// bundle larger than DefaultMemoryLimit is.
func BenchmarkBundleSpilled(b *testing.B) { benchmarkBundle(b, 1) }

func benchmarkBundle(b *testing.B, memoryLimit int64) {
	base := b.TempDir()
	corpus, run := filepath.Join(base, "corpus"), filepath.Join(base, "run")
	must(b, os.Mkdir(corpus, 0o755))
	makeRun(b, audioHeavy, corpus, run)
	s := testSigner(b)
	data := seal(b, run, s, bundle.SealOptions{})
	opts := verify.Options{PublicKey: s.PublicKey(), MemoryLimit: memoryLimit, TempDir: b.TempDir()}
	records := 0
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		rep, err := verify.Bundle(context.Background(), bytes.NewReader(data), opts)
		if err != nil || rep.Failed != 0 {
			b.Fatalf("%v %+v", err, rep)
		}
		records = 0
		for _, w := range audioHeavy.Levels {
			records += 2 * audioHeavy.Repeats * (w + audioHeavy.Requests[0])
		}
	}
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
