package bundle

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSeal seals audio-heavy run directories of two sizes (clips are
// WAV noise, which barely compresses: the worst case for throughput).
// MB/s is bytes of run directory per second; B/op and peak-heap-MB must
// not grow with the size: Seal streams.
//
//	go test ./bundle -run '^$' -bench Seal -benchmem
func BenchmarkSeal(b *testing.B) {
	for _, clips := range []int{8, 64} {
		fx := fixture{clips: clips, clipSeconds: 60, records: 2000, complete: true}
		dir := b.TempDir()
		writeRunDir(b, dir, fx)
		files, err := listRunDir(dir, false)
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		buf := make([]byte, 1<<20)
		for _, f := range files {
			_, n, _ := hashFile(f.abs, buf)
			total += n
		}
		s := testSigner(b)
		b.Run(fmt.Sprintf("%dMB", total>>20), func(b *testing.B) {
			b.SetBytes(total)
			peak := watchHeap()
			cpu0 := cpuTime()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Seal(context.Background(), io.Discard, dir, s, SealOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			// The machine is shared: MB per CPU-second shows what Seal
			// costs whatever else runs; MB/s is wall clock.
			b.ReportMetric(float64(total*int64(b.N))/(1<<20)/(cpuTime()-cpu0).Seconds(), "MB/cpu-s")
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
		})
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// watchHeap samples the live heap until the returned func is called, and
// returns the highest value seen.
func watchHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	return func() uint64 { close(done); return peak.Load() }
}

// BenchmarkOpen reads a bundle through the hardened reader.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	writeRunDir(b, dir, fixture{clips: 16, clipSeconds: 60, records: 2000, complete: true})
	var data bytesWriter
	if _, err := Seal(context.Background(), &data, dir, testSigner(b), SealOptions{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open(&bytesReader{b: data}, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

type bytesWriter []byte

func (w *bytesWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

type bytesReader struct{ b []byte }

func (r *bytesReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
