package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/klauspost/compress/zstd"
)

// fixedSigner is a deterministic ECDSA P-256 key (RFC 6979 signatures), so
// two seals of one run directory must be the same bytes.
func fixedSigner() (*bundle.Signer, error) {
	d := sha256.Sum256([]byte("loadcmp fixed key"))
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		return nil, err
	}
	return bundle.NewSigner(priv)
}

// timedOut is what the seal and verify roles print.
type timedOut struct {
	Seconds float64 `json:"seconds"`
	SHA256  string  `json:"sha256,omitempty"`
	Size    int64   `json:"size,omitempty"`
	Entries int     `json:"entries,omitempty"`
	// PeakRSS is VmHWM of this process: rusage's ru_maxrss would carry
	// over the parent's high-water mark through fork and exec.
	PeakRSS int64 `json:"peak_rss"`
}

// peakRSS reads this process's resident high-water mark (Linux).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// sealMain seals -dir into -out with the fixed key.
func sealMain(args []string) int {
	fs := flag.NewFlagSet("seal", flag.ContinueOnError)
	dir := fs.String("dir", "", "run directory")
	out := fs.String("out", "", "bundle to write (must not exist); empty: discard the bytes, keep their SHA-256")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, err := fixedSigner()
	if err != nil {
		return fail("seal", err)
	}
	var f *os.File
	if *out != "" {
		if f, err = os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err != nil {
			return fail("seal", err)
		}
	}
	var dst io.Writer = io.Discard
	if f != nil {
		dst = f
	}
	w := bufio.NewWriterSize(dst, 1<<20)
	t0 := time.Now()
	res, err := bundle.Seal(context.Background(), w, *dir, s, bundle.SealOptions{Sealer: schemas.Sealer{Name: "loadcmp"}})
	if err == nil {
		err = w.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail("seal", err)
	}
	json.NewEncoder(os.Stdout).Encode(timedOut{Seconds: time.Since(t0).Seconds(), SHA256: res.SHA256, Size: res.Size, PeakRSS: peakRSS()})
	return 0
}

// verifyMain runs the whole checklist of package verify on -bundle with the
// fixed key, and fails unless it passes.
func verifyMain(args []string) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	path := fs.String("bundle", "", "bundle to verify")
	profile := fs.String("cpuprofile", "", "write a CPU profile here")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *profile != "" {
		pf, err := os.Create(*profile)
		if err != nil {
			return fail("verify", err)
		}
		pprof.StartCPUProfile(pf)
		defer func() { pprof.StopCPUProfile(); pf.Close() }()
	}
	s, err := fixedSigner()
	if err != nil {
		return fail("verify", err)
	}
	f, err := os.Open(*path)
	if err != nil {
		return fail("verify", err)
	}
	defer f.Close()
	t0 := time.Now()
	rep, err := verify.Bundle(context.Background(), bufio.NewReaderSize(f, 1<<20), verify.Options{PublicKey: s.PublicKey()})
	if err != nil {
		return fail("verify", err)
	}
	d := time.Since(t0)
	if !rep.OK() {
		var why []string
		for _, c := range rep.Checks {
			if c.Status == verify.Fail {
				b, _ := json.Marshal(c)
				why = append(why, string(b))
			}
		}
		return fail("verify", fmt.Errorf("%d checks failed: %s", rep.Failed, strings.Join(why, "; ")))
	}
	json.NewEncoder(os.Stdout).Encode(timedOut{Seconds: d.Seconds(), Entries: rep.Warned, PeakRSS: peakRSS()})
	return 0
}

// openMain reads -bundle through bundle.Open (safety limits, every entry
// hashed), checks the signature with the fixed key and every subject: the
// part of verify that does not depend on what the files say.
func openMain(args []string) int {
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	path := fs.String("bundle", "", "bundle to verify")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, err := fixedSigner()
	if err != nil {
		return fail("open", err)
	}
	f, err := os.Open(*path)
	if err != nil {
		return fail("open", err)
	}
	defer f.Close()
	t0 := time.Now()
	b, err := bundle.Open(bufio.NewReaderSize(f, 1<<20), bundle.DefaultLimits)
	if err != nil {
		return fail("open", err)
	}
	st, err := b.Verify(s.PublicKey())
	if err != nil {
		return fail("open", err)
	}
	if err := b.CheckSubjects(st); err != nil {
		return fail("open", err)
	}
	json.NewEncoder(os.Stdout).Encode(timedOut{Seconds: time.Since(t0).Seconds(), Entries: len(b.Entries), PeakRSS: peakRSS()})
	return 0
}

func fail(role string, err error) int {
	fmt.Fprintf(os.Stderr, "loadcmp %s: error: %v\n", role, err)
	return 1
}

// Run directories for the seal benchmark are real: benchseal's runner
// sends every clip of a corpus of 6.48 s noise clips (the benchmark's input
// size; noise is the worst case for zstd, and speech barely compresses at
// this level either) to the null server at concurrency 4 and 16, so that
// run.json, the records (two variants of every clip, at least 128 requests
// per level) and claims.json agree and verify has all its work to do.
// Audio is nearly all the bytes.
const clipFrames = 103680

// buildRunDir writes clips of noise until the corpus is about size bytes,
// runs benchseal against url and returns the run directory's size.
func buildRunDir(ctx context.Context, dir, corpus, url string, size int64) (int64, error) {
	rng := rand.New(rand.NewPCG(uint64(size), 7))
	var total int64
	for i := 0; total < size; i++ {
		wav := noiseWAV(rng, clipFrames)
		if err := writeFile(corpus, fmt.Sprintf("clip%06d.wav", i), wav); err != nil {
			return 0, err
		}
		total += int64(len(wav))
	}
	clips, err := bench.LoadCorpus(corpus)
	if err != nil {
		return 0, err
	}
	// At least 8 requests per worker: verify wants to see all C in flight.
	plan := bench.Plan{Targets: []bench.Target{{Name: "null", URL: url, Model: "null"}}, Corpus: clips,
		Levels: []int{4, 16}, Requests: []int{max(len(clips), 128)}, Warmup: []int{0}, Repeats: 1, Seed: 7}
	if _, err := bench.Run(ctx, dir, plan, bench.WithTimeout(time.Minute)); err != nil {
		return 0, err
	}
	total = 0
	err = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			total += fi.Size()
		}
		return err
	})
	return total, err
}

func writeFile(dir, name string, b []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// noiseWAV is a 16 kHz mono 16-bit PCM WAV of white noise.
func noiseWAV(rng *rand.Rand, frames int) []byte {
	b := wavHeader(frames)
	data := make([]byte, 2*frames)
	for i := 0; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	return append(b, data...)
}

func wavHeader(frames int) []byte {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+2*frames))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], 16000)
	binary.LittleEndian.PutUint32(h[28:], 32000)
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(2*frames))
	return h
}

// limits are the machine's reference speeds, one goroutine each, on the
// same mix of bytes as the run directories (90% noise audio, 10% JSONL).
type limits struct {
	SHA256MBs, ZstdEncMBs, ZstdDecMBs float64
}

func measureLimits(sample []byte) (limits, error) {
	var l limits
	mbs := func(n int, d time.Duration) float64 { return float64(n) / (1 << 20) / d.Seconds() }
	const rounds = 4
	t0 := time.Now()
	for range rounds {
		sha256.Sum256(sample)
	}
	l.SHA256MBs = mbs(rounds*len(sample), time.Since(t0))
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true), zstd.WithWindowSize(4<<20))
	if err != nil {
		return l, err
	}
	var comp []byte
	t0 = time.Now()
	for range rounds {
		comp = enc.EncodeAll(sample, comp[:0])
	}
	l.ZstdEncMBs = mbs(rounds*len(sample), time.Since(t0))
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return l, err
	}
	defer dec.Close()
	out := make([]byte, 0, len(sample))
	t0 = time.Now()
	for range rounds {
		if out, err = dec.DecodeAll(comp, out[:0]); err != nil {
			return l, err
		}
	}
	l.ZstdDecMBs = mbs(rounds*len(sample), time.Since(t0))
	return l, nil
}

// sampleMix is 64 MiB of the run directory's own files (clips, then
// records), in its proportions.
func sampleMix(dir string) ([]byte, error) {
	var b []byte
	var audio, recs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if strings.HasSuffix(p, ".wav") {
				audio = append(audio, p)
			} else if strings.HasSuffix(p, ".jsonl") {
				recs = append(recs, p)
			}
		}
		return nil
	})
	if len(audio) == 0 || len(recs) == 0 {
		return nil, fmt.Errorf("%s: no clips or records to sample", dir)
	}
	for _, p := range recs { // records first: small, and always included
		more, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		b = append(b, more...)
	}
	for _, p := range audio {
		if len(b) >= 64<<20 {
			break
		}
		more, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		b = append(b, more...)
	}
	return b, nil
}
