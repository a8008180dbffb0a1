package bundle

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/testkit"
	"github.com/benchseal/benchseal/schemas"
)

// fixture describes a run directory written by writeRunDir.
type fixture struct {
	clips       int     // WAV clips in inputs/
	clipSeconds float64 // length of each (16 kHz mono 16-bit)
	records     int     // records per JSONL file
	complete    bool
}

var smallRun = fixture{clips: 2, clipSeconds: 0.5, records: 20, complete: true}

// writeRunDir writes a valid run directory, the shape benchseal run
// writes (docs/DESIGN.md, "Formats"), from the schemas types, deterministically.
func writeRunDir(t testing.TB, dir string, fx fixture) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	run := schemas.Run{
		Schema:    schemas.RunSchema,
		Tool:      schemas.Tool{Name: "benchseal", Version: "v0.0.0-test", GoVersion: "go1.26.8", Modules: []schemas.Module{}},
		StartedAt: time.Date(2026, 11, 29, 18, 0, 0, 123456789, time.UTC),
		EndedAt:   time.Date(2026, 11, 29, 18, 5, 0, 0, time.UTC),
		Complete:  fx.complete,
		Seed:      42,
		Protocol: schemas.Protocol{Levels: []int{1, 4}, Requests: []int{8, 16}, Warmup: []int{1, 4}, Repeats: 1,
			Perturb: true, TimeoutS: 60, SuccessRule: schemas.SuccessRule, TargetOrder: "alternate"},
		Scoring: schemas.Scoring{Normalizer: "whisper-en", Aligner: "unit", Unit: "word", Failures: "excluded"},
		Targets: []schemas.Target{
			{Name: "a", URL: "http://127.0.0.1:8000", Model: "Qwen/Qwen3-ASR-1.7B", RequestFields: map[string]string{"language": "en"}},
			{Name: "b", URL: "http://127.0.0.1:8001", Model: "Qwen/Qwen3-ASR-1.7B", RequestFields: map[string]string{}},
		},
	}
	if !fx.complete {
		run.Incomplete = "interrupted"
	}
	for i := range fx.clips {
		wav := makeWAV(rng, int(fx.clipSeconds*16000))
		sum := sha256.Sum256(wav)
		name := "inputs/" + hex.EncodeToString(sum[:]) + ".wav"
		writeFile(t, dir, name, wav)
		run.Corpus = append(run.Corpus, schemas.Clip{ID: fmt.Sprintf("clip%d", i), File: name, Source: fmt.Sprintf("clip%d.wav", i),
			SHA256: hex.EncodeToString(sum[:]), Size: int64(len(wav)), Format: "pcm", Frames: int64(fx.clipSeconds * 16000),
			Channels: 1, SampleRate: 16000, Bits: 16, ValidBits: 16, Seconds: fx.clipSeconds, Text: "hello world"})
	}
	writeJSON(t, dir, "run.json", run)
	wer := 0.05
	m := schemas.Metrics{Requests: 8, Succeeded: 8, WindowS: 2, ReqPerS: 4, RTFx: f64(2), LatencyMeanS: f64(0.25),
		LatencyP50S: f64(0.2), LatencyP90S: f64(0.3), LatencyP95S: f64(0.35), LatencyP99S: f64(0.4), LatencyMaxS: f64(0.41), TTFBP50S: f64(0.1),
		PeakInFlight: 1, Quality: &wer, Errors: map[string]int{}}
	claims := schemas.Claims{Schema: schemas.ClaimsSchema}
	for _, tg := range []string{"a", "b"} {
		tc := schemas.TargetClaims{Target: tg}
		for _, c := range run.Protocol.Levels {
			tc.Levels = append(tc.Levels, schemas.LevelClaims{Concurrency: c, Repeats: []schemas.Metrics{m}, Median: m, Min: m, Max: m})
			var recs []byte
			for i := range fx.records {
				r := schemas.Record{Target: tg, Concurrency: c, Repeat: 1, Phase: schemas.PhaseMeasure, Seq: i, Clip: "clip0",
					SampleIndex: int64(rng.IntN(8000)), InputSHA256: hex.EncodeToString(sha256.New().Sum([]byte{byte(i)}))[:64],
					Seconds: fx.clipSeconds, StartNs: int64(i) * 1e8, EndNs: int64(i)*1e8 + 2e8, Status: 200, OK: true,
					Output: schemas.Output{Text: "hello world", Scored: "hello world"}}
				b, _ := json.Marshal(r)
				recs = append(append(recs, b...), '\n')
			}
			writeFile(t, dir, fmt.Sprintf("records/%s/c%d-r1.jsonl", tg, c), recs)
		}
		claims.Targets = append(claims.Targets, tc)
	}
	writeJSON(t, dir, "claims.json", claims)
	writeFile(t, dir, "env/host.json", []byte(`{"hostname":"test","cpus":2}`+"\n"))
	writeFile(t, dir, "telemetry/host.jsonl", []byte(`{"t_ns":0,"cpu":0.5}`+"\n"))
	writeFile(t, dir, "servers/a/launch.log", []byte("INFO server started\n"))
}

// makeWAV is a real 16 kHz mono 16-bit PCM WAV of noise.
func makeWAV(rng *rand.Rand, frames int) []byte {
	data := make([]byte, 2*frames)
	i := 0
	for ; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	for ; i < len(data); i++ {
		data[i] = byte(rng.Uint32())
	}
	return testkit.WAV(16000, 1, 16, data)
}

func writeFile(t testing.TB, dir, name string, b []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t testing.TB, dir, name string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, name, append(b, '\n'))
}

// testSigner is a fixed ECDSA P-256 key, so that two seals can be
// compared byte for byte.
func testSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := NewSigner(testkit.Key(t, "benchseal test key"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func f64(x float64) *float64 { return &x }
