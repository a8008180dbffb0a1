package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
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

// verifyMain reads -bundle through bundle.Open (safety limits, every entry
// hashed), checks the signature with the fixed key and every subject.
func verifyMain(args []string) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	path := fs.String("bundle", "", "bundle to verify")
	if err := fs.Parse(args); err != nil {
		return 2
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
	b, err := bundle.Open(bufio.NewReaderSize(f, 1<<20), bundle.DefaultLimits)
	if err != nil {
		return fail("verify", err)
	}
	st, err := b.Verify(s.PublicKey())
	if err != nil {
		return fail("verify", err)
	}
	if err := b.CheckSubjects(st); err != nil {
		return fail("verify", err)
	}
	json.NewEncoder(os.Stdout).Encode(timedOut{Seconds: time.Since(t0).Seconds(), Entries: len(b.Entries), PeakRSS: peakRSS()})
	return 0
}

func fail(role string, err error) int {
	fmt.Fprintf(os.Stderr, "loadcmp %s: error: %v\n", role, err)
	return 1
}

// Run directories for the seal benchmark: the shape benchseal run writes,
// built from the schemas types. 60 s noise clips (1.92 MB each; noise is
// the worst case for zstd, and real speech barely compresses at this level
// either) make about 90% of the bytes, records the rest.
const (
	clipFrames     = 60 * 16000
	recordsPerFile = 2000
)

// buildRunDir writes a run directory of about size bytes under dir and
// returns its exact size.
func buildRunDir(dir string, size int64) (int64, error) {
	rng := rand.New(rand.NewPCG(uint64(size), 7))
	start := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	run := schemas.Run{
		Schema: schemas.RunSchema, StartedAt: start, EndedAt: start.Add(time.Hour), Complete: true, Seed: 7,
		Tool: schemas.Tool{Name: "benchseal", Version: "loadcmp", GoVersion: "go1.26.8", Modules: []schemas.Module{}},
		Protocol: schemas.Protocol{Levels: []int{1}, Requests: []int{1}, Warmup: []int{0}, Repeats: 1,
			Perturb: true, TimeoutS: 60, SuccessRule: schemas.SuccessRule, TargetOrder: "alternate"},
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
		Targets: []schemas.Target{{Name: "a", URL: "http://127.0.0.1:8000", Model: "m", RequestFields: map[string]string{}}},
	}
	var total int64
	audio := size * 9 / 10
	for i := 0; total < audio; i++ {
		wav := noiseWAV(rng, clipFrames)
		sum := sha256.Sum256(wav)
		name := "inputs/" + hex.EncodeToString(sum[:]) + ".wav"
		if err := writeFile(dir, name, wav); err != nil {
			return 0, err
		}
		total += int64(len(wav))
		run.Corpus = append(run.Corpus, schemas.Clip{ID: fmt.Sprintf("clip%d", i), File: name, Source: fmt.Sprintf("clip%d.wav", i),
			SHA256: hex.EncodeToString(sum[:]), Size: int64(len(wav)), Format: "pcm", Frames: clipFrames,
			Channels: 1, SampleRate: 16000, Bits: 16, ValidBits: 16, Seconds: 60, Text: "hello world"})
	}
	for file := 0; total < size; file++ {
		p := filepath.Join(dir, "records", "a", fmt.Sprintf("c%d-r1.jsonl", file+1))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, err
		}
		f, err := os.Create(p)
		if err != nil {
			return 0, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		enc := json.NewEncoder(w)
		for i := range recordsPerFile {
			var sha [32]byte
			binary.LittleEndian.PutUint64(sha[:], rng.Uint64())
			binary.LittleEndian.PutUint64(sha[8:], rng.Uint64())
			start := int64(i)*4_000_000 + rng.Int64N(1_000_000)
			r := schemas.Record{Target: "a", Concurrency: file + 1, Repeat: 1, Phase: schemas.PhaseMeasure, Seq: i,
				Worker: i % (file + 1), Clip: fmt.Sprintf("clip%d", i%len(run.Corpus)), Variant: int64(i),
				SampleIndex: rng.Int64N(clipFrames), InputSHA256: hex.EncodeToString(sha256.New().Sum(sha[:16]))[:64],
				AudioSeconds: 60, StartNs: start, FirstByteNs: start + 150_000_000 + rng.Int64N(1e7),
				EndNs: start + 200_000_000 + rng.Int64N(5e7), Status: 200, OK: true,
				Text:       "the quick brown fox jumps over the lazy dog and then some more words of a transcript",
				TextScored: "the quick brown fox jumps over the lazy dog and then some more words of a transcript"}
			r.ByteOffset = 44 + 2*r.SampleIndex
			if err := enc.Encode(&r); err != nil {
				f.Close()
				return 0, err
			}
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return 0, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return 0, err
		}
		total += st.Size()
		if err := f.Close(); err != nil {
			return 0, err
		}
	}
	b, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := writeFile(dir, "run.json", append(b, '\n')); err != nil {
		return 0, err
	}
	total += int64(len(b) + 1)
	wer := 0.0
	m := schemas.Metrics{Requests: 1, Succeeded: 1, WindowS: 1, ReqPerS: 1, RTFx: 60, LatencyMeanS: 0.2,
		LatencyP50S: 0.2, LatencyP90S: 0.2, LatencyP95S: 0.2, LatencyP99S: 0.2, LatencyMaxS: 0.2, TTFBP50S: 0.15,
		PeakInFlight: 1, WER: &wer, Errors: map[string]int{}}
	cl := schemas.Claims{Schema: schemas.ClaimsSchema, Targets: []schemas.TargetClaims{{Target: "a",
		Levels: []schemas.LevelClaims{{Concurrency: 1, Repeats: []schemas.Metrics{m}, Median: m, Min: m, Max: m}}}}}
	if b, err = json.MarshalIndent(cl, "", "  "); err != nil {
		return 0, err
	}
	if err := writeFile(dir, "claims.json", append(b, '\n')); err != nil {
		return 0, err
	}
	return total + int64(len(b)+1), nil
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

// sampleMix is 64 MiB in the proportions of the run directories.
func sampleMix(dir string) ([]byte, error) {
	rng := rand.New(rand.NewPCG(1, 1))
	var b []byte
	for len(b) < 58<<20 {
		b = append(b, noiseWAV(rng, clipFrames)...)
	}
	recs, err := filepath.Glob(filepath.Join(dir, "records", "a", "*.jsonl"))
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("no records in %s to sample", dir)
	}
	for _, r := range recs {
		f, err := os.Open(r)
		if err != nil {
			return nil, err
		}
		b, err = appendFrom(b, f, 64<<20-len(b))
		f.Close()
		if err != nil || len(b) >= 64<<20 {
			return b, err
		}
	}
	return b, nil
}

func appendFrom(b []byte, r io.Reader, n int) ([]byte, error) {
	more, err := io.ReadAll(io.LimitReader(r, int64(n)))
	return append(b, more...), err
}
