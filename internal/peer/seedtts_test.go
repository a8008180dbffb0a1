package peer

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func checkSeed(t *testing.T, fsys fstest.MapFS) *Report {
	t.Helper()
	raw, err := fs.Sub(fsys, "raw")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := SeedTTS(bytes.NewReader(fsys["result.json"].Data), raw)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func figure(rep *Report, scope, name string) (Figure, bool) {
	for _, g := range rep.Groups {
		if g.Scope != scope {
			continue
		}
		for _, f := range g.Figures {
			if f.Name == name {
				return f, true
			}
		}
	}
	return Figure{}, false
}

func brokenList(rep *Report) []string {
	var out []string
	for _, g := range rep.Groups {
		for _, f := range g.Figures {
			if f.Status == Broken {
				out = append(out, g.Scope+": "+f.Name+": "+f.Reason)
			}
		}
	}
	return out
}

// An honest result: every figure the raw data can give holds; wall_clock_s
// is not observed (no timestamps) but its lower bounds hold.
func TestSeedTTSHonest(t *testing.T) {
	rep := checkSeed(t, seedFixture(nil))
	if !rep.OK() {
		t.Fatalf("broken: %q", brokenList(rep))
	}
	for _, c := range []struct {
		scope, name string
		want        Status
	}{
		{"conc 2 rep 1", "corpus_wer", Held},
		{"conc 2 rep 1", "corpus_wer (ref_text/hyp_text, whisper-en)", Held},
		{"conc 2 rep 2", "rtfx", Held},
		{"conc 2 rep 2", "throughput_samples_per_s", Held},
		{"conc 2 rep 2", "latency_p99_s", Held},
		{"conc 2 rep 2", "rtf_p95", Held},
		{"conc 2 rep 2", "wall_clock_s", NotObserved},
		{"conc 2 (over 2 repeats)", "rtfx mean", Held},
		{"conc 2 (over 2 repeats)", "evaluated", Held},
		{"result", "concurrencies", Held},
	} {
		f, ok := figure(rep, c.scope, c.name)
		if !ok || f.Status != c.want {
			t.Errorf("%s %s: %+v, want %v", c.scope, c.name, f, c.want)
		}
	}
	if f, _ := figure(rep, "conc 2 rep 2", "rtfx"); f.Recomputed != 4.286 {
		t.Errorf("rtfx recomputed %v, want round(3/0.7, 3) = 4.286", f.Recomputed)
	}
	if rep.Held < 60 || rep.NotObserved != 2 {
		t.Errorf("held %d, not observed %d", rep.Held, rep.NotObserved)
	}
}

// Each doctoring of the peer's files breaks the figure it touches.
func TestSeedTTSDoctored(t *testing.T) {
	line := func(fsys fstest.MapFS, name string, f func(string) string) {
		fsys[name].Data = []byte(f(string(fsys[name].Data)))
	}
	cases := []struct {
		name   string
		doctor func() fstest.MapFS
		want   string // scope: figure
	}{
		{"req/s inflated", func() fstest.MapFS {
			return seedFixture(func(r []obj) { set(r[0], "throughput_samples_per_s", 2.2) })
		}, "conc 2 rep 1: throughput_samples_per_s"},
		{"rtfx misrounded", func() fstest.MapFS {
			return seedFixture(func(r []obj) { set(r[1], "rtfx", 4.2857) })
		}, "conc 2 rep 2: rtfx"},
		{"failed sample dropped from the raw file", func() fstest.MapFS {
			fsys := seedFixture(nil)
			line(fsys, "raw/conc2_rep2.jsonl", func(s string) string { return s[:strings.LastIndex(s[:len(s)-1], "\n")+1] })
			return fsys
		}, "conc 2 rep 2: total"},
		{"empty transcript scored as right", func() fstest.MapFS {
			fsys := seedFixture(nil)
			line(fsys, "raw/conc2_rep1.jsonl", func(s string) string {
				return strings.Replace(s, `"hyp_norm": "", "audio_duration_s": 1.0`, `"hyp_norm": "a dog ran", "audio_duration_s": 1.0`, 1)
			})
			return fsys
		}, "conc 2 rep 1: per-sample wer"},
		{"normalised text edited with its wer", func() fstest.MapFS {
			fsys := seedFixture(func(r []obj) { set(r[0], "corpus_wer", 0.0) })
			line(fsys, "raw/conc2_rep1.jsonl", func(s string) string {
				s = strings.Replace(s, `"hyp_norm": "", "audio_duration_s": 1.0`, `"hyp_norm": "a dog ran", "audio_duration_s": 1.0`, 1)
				return strings.Replace(s, `"wer": 1.0`, `"wer": 0.0`, 1)
			})
			return fsys
		}, "conc 2 rep 1: normalised texts"},
		{"wall clock shorter than the requests allow", func() fstest.MapFS {
			return seedFixture(func(r []obj) {
				set(r[1], "wall_clock_s", 0.25)
				set(r[1], "throughput_samples_per_s", 8.0)
				set(r[1], "rtfx", 12.0)
			})
		}, "conc 2 rep 2: wall_clock_s"},
		{"mean over repeats", func() fstest.MapFS {
			fsys := seedFixture(nil)
			line(fsys, "result.json", func(s string) string {
				return strings.Replace(s, `"mean": 3.643`, `"mean": 3.9`, 1)
			})
			return fsys
		}, "conc 2 (over 2 repeats): rtfx mean"},
		{"a repeat left out of the result", func() fstest.MapFS {
			fsys := seedFixture(nil)
			fsys["raw/conc2_rep3.jsonl"] = &fstest.MapFile{Data: fsys["raw/conc2_rep1.jsonl"].Data}
			return fsys
		}, "result: raw file conc2_rep3.jsonl"},
		{"a level left out of the result", func() fstest.MapFS {
			fsys := seedFixture(nil)
			line(fsys, "result.json", func(s string) string {
				return strings.Replace(s, "\"concurrencies\": [\n      2\n    ]", "\"concurrencies\": [\n      1,\n      2\n    ]", 1)
			})
			return fsys
		}, "result: concurrencies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := checkSeed(t, c.doctor())
			if rep.OK() {
				t.Fatalf("doctored result holds")
			}
			got := brokenList(rep)
			for _, b := range got {
				if strings.HasPrefix(b, c.want+":") {
					return
				}
			}
			t.Errorf("broken %q, want %s among them", got, c.want)
		})
	}
}

// Without raw files nothing is proven: every raw figure is not observed,
// none broken, and the report says how to provide them.
func TestSeedTTSNoRaw(t *testing.T) {
	rep, err := SeedTTS(bytes.NewReader(seedFixture(nil)["result.json"].Data), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := figure(rep, "conc 2 rep 1", "rtfx")
	if f.Status != NotObserved || !strings.Contains(f.Reason, "--raw") {
		t.Errorf("rtfx without raw files: %+v", f)
	}
	if rep.Broken != 0 || rep.NotObserved < 26 {
		t.Errorf("broken %d, not observed %d", rep.Broken, rep.NotObserved)
	}
}

func TestSeedTTSNotAResult(t *testing.T) {
	for _, in := range []string{"", "{", `{"schema_version": 2}`} {
		if _, err := SeedTTS(strings.NewReader(in), nil); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
