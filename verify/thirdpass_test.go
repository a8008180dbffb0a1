package verify_test

// The corpus's third pass (issue 25): edits that today's checks let
// through, each caught by the check whose evidence contradicts it.

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/serverevents"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/klauspost/compress/zstd"
)

func thirdPassKinds() []kind {
	fail := verify.Fail
	keep := func(testing.TB, string) {}
	return []kind{
		// An extracted bundle is verified as the bundle it came from, never
		// as an unsealed run directory that signs nothing.
		{name: "extracted-other-key", class: "signature", check: 2, status: fail, text: "signed by a different key (sha256:",
			bundle: func(tb testing.TB, b []byte, _ *ecdsa.PrivateKey) ([]byte, verify.Options) {
				return b, verify.Options{PublicKey: testSigner(tb).PublicKey()}
			},
			extracted: keep,
			assert: func(tb testing.TB, rep *verify.Report) {
				if rep.Kind != "extracted bundle" || rep.OK() {
					tb.Errorf("kind %q, OK %v: want a failing extracted bundle", rep.Kind, rep.OK())
				}
			}},
		{name: "extracted-file-changed", class: "subjects", check: 3, status: fail, text: "statement says",
			extracted: func(tb testing.TB, dir string) {
				must(tb, os.WriteFile(filepath.Join(dir, "REPORT.md"), []byte("# all fine\n"), 0o644))
			}},
		{name: "extracted-file-added", class: "subjects", check: 3, status: fail, text: "in the folder but not a subject of the statement",
			extracted: func(tb testing.TB, dir string) {
				must(tb, os.WriteFile(filepath.Join(dir, "servers", "a", "notes.txt"), []byte("added\n"), 0o644))
			}},
		{name: "extracted-file-removed", class: "subjects", check: 3, status: fail, text: "a subject of the statement but not in the folder",
			extracted: func(tb testing.TB, dir string) {
				must(tb, os.Remove(filepath.Join(dir, "records", "a", "c3-r2.jsonl")))
			}},
		// Ids: a record's id is its own; the server's spans name only
		// recorded requests, at one clock offset from the records.
		{name: "ids-swapped-with-warmup", class: "protocol", check: 7, status: fail, text: "ids were moved between records",
			doctor: func(tb testing.TB, dir string) { swapWarmupID(tb, dir, "records/a/c3-r1.jsonl") }},
		{name: "ids-swapped-spans-elsewhere", class: "events", check: verify.CheckEvents, status: fail, text: "no one clock offset fits its spans",
			doctor: func(tb testing.TB, dir string) { swapWarmupID(tb, dir, "records/a/c3-r1.jsonl") }},
		{name: "last-repeat-dropped-spans-left", class: "events", check: verify.CheckEvents, status: fail, text: "that no record of a scheduled step or probe carries",
			doctor: dropLastRepeat},
		// The last repeat taken out (protocol.repeats lowered): the
		// server's counter grew across the gap its first removed step
		// (a's and b's c=1 repeat 2) left, with no records in it.
		{name: "repeat-dropped-counters-grew", class: "protocol", check: 7, status: verify.Warn, text: "other traffic reached the server, or steps were taken out of the run",
			doctor: dropLastRepeat},
		// A scrape the schedule implies, missing with no scrape error.
		{name: "measure-scrape-removed", class: "protocol", check: 7, status: fail, text: "after the warm-ups of its other steps and telemetry/steps.jsonl records no failed scrape",
			doctor: func(tb testing.TB, dir string) {
				must(tb, os.Remove(filepath.Join(dir, "servers/a/metrics/c3-r1-measure.prom")))
				editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
					for i := range s {
						if s[i].Target == "a" && s[i].Concurrency == 3 && s[i].Repeat == 1 {
							s[i].CacheMeasure = nil
						}
					}
					return s
				})
				refresh(tb, dir)
			}},
		// A knob held against behaviour: probes edited to a limit of 1
		// running request, while the records had 3 in flight and the
		// server's inference histogram shows more than one running at
		// once. (A limit of 2 is caught only where the base run kept
		// more than 2 in flight on average, which a busy host's C=3 steps
		// need not: mean 2.5 of 3 seen beside 8 busy loops.)
		{name: "max-running-edited", class: "fairness", check: 8, status: fail, text: "which a server limited to 1 cannot do",
			doctor: func(tb testing.TB, dir string) {
				for _, t := range []string{"a", "b"} {
					for _, when := range []string{"before", "after"} {
						f := "servers/" + t + "/probes-" + when + ".json"
						if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
							continue
						}
						editFile(tb, dir, f, func(s string) string {
							if !strings.Contains(s, `max_num_seqs\":64`) {
								tb.Fatalf("%s: no max_num_seqs 64", f)
							}
							return strings.ReplaceAll(s, `max_num_seqs\":64`, `max_num_seqs\":1`)
						})
					}
				}
				refresh(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				if c := rep.Check(verify.CheckFairness); strings.Contains(c.Summary, "same server knobs") {
					tb.Errorf("check 8 says %q of a limit its server's own histogram contradicts", c.Summary)
				}
			}},
		// GPU facts are held only for targets whose GPUs were named and
		// sampled: env/gpu.json alone describes the client's host.
		{name: "gpus-not-named", class: "fairness", check: 8, status: verify.Warn, text: "is not observed: no GPU was named for it and sampled",
			doctor: func(tb testing.TB, dir string) {
				unnameGPUs(tb, dir)
				refresh(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				if c := rep.Check(verify.CheckFairness); strings.Contains(c.Summary, "same GPU model") {
					tb.Errorf("check 8 says %q for targets whose GPUs nobody named", c.Summary)
				}
			}},
		{name: "gpu-never-sampled", class: "fairness", check: 8, status: verify.Warn, text: "GPU 1 named for it was never sampled",
			doctor: func(tb testing.TB, dir string) {
				editLines(tb, filepath.Join(dir, "telemetry", "gpu.jsonl"), func(_ int, line []byte) []byte {
					var g schemas.GPUSample
					must(tb, json.Unmarshal(line, &g))
					if g.GPU == 1 {
						return nil
					}
					return line
				})
				refresh(tb, dir)
			}},
	}
}

// swapWarmupID swaps the request ids of a step's first warm-up and its
// last measured request, so that the warm-up's span joins the measured
// record, and re-derives the step's stages file as the run would.
func swapWarmupID(tb testing.TB, dir, file string) {
	editRecords(tb, dir, file, func(recs []schemas.Record) []schemas.Record {
		w, m := -1, -1
		for i, r := range recs {
			if r.Phase == schemas.PhaseWarmup && w < 0 {
				w = i
			}
			if r.Phase == schemas.PhaseMeasure {
				m = i
			}
		}
		if w < 0 || m < 0 {
			tb.Fatalf("%s: no warm-up or no measured request to swap", file)
		}
		recs[w].RequestID, recs[m].RequestID = recs[m].RequestID, recs[w].RequestID
		recs[w].ServerRequestID, recs[m].ServerRequestID = recs[m].ServerRequestID, recs[w].ServerRequestID
		return recs
	})
	target, _, _ := stepOf(file)
	restage(tb, dir, target)
	refresh(tb, dir)
}

// dropLastRepeat takes the run's last repeat out everywhere a forger
// would (records, scrapes, stages, steps.jsonl, protocol.repeats), and
// leaves the OTLP exports, which hold every span of the run together.
func dropLastRepeat(tb testing.TB, dir string) {
	for _, pat := range []string{"records/*/*-r2.jsonl", "servers/*/metrics/*-r2-*.prom", "servers/*/stages/*-r2.jsonl"} {
		files, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range files {
			must(tb, os.Remove(f))
		}
	}
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		var out []schemas.StepTelemetry
		for _, x := range s {
			if x.Repeat != 2 {
				out = append(out, x)
			}
		}
		return out
	})
	editRun(tb, dir, func(r *schemas.Run) { r.Protocol.Repeats = 1 })
	refresh(tb, dir)
}

// restage re-derives a target's stages files from its sealed OTLP exports
// and its records, as the run wrote them (serverevents.StepSpans).
func restage(tb testing.TB, dir, target string) {
	var spans []serverevents.Span
	exports, _ := filepath.Glob(filepath.Join(dir, "servers", target, "otlp", "*.binpb"))
	for _, f := range exports {
		b, err := os.ReadFile(f)
		must(tb, err)
		sp, err := serverevents.DecodeOTLP(b)
		must(tb, err)
		spans = append(spans, sp...)
	}
	stages, _ := filepath.Glob(filepath.Join(dir, "servers", target, "stages", "*.jsonl"))
	for _, f := range stages {
		recFile := filepath.Join(dir, "records", target, filepath.Base(f))
		b, err := os.ReadFile(recFile)
		must(tb, err)
		recs, err := claims.ReadRecords(recFile, bytes.NewReader(b))
		must(tb, err)
		var out bytes.Buffer
		for _, l := range serverevents.StepSpans(spans, recs) {
			line, err := json.Marshal(l)
			must(tb, err)
			out.Write(append(line, '\n'))
		}
		must(tb, os.WriteFile(f, out.Bytes(), 0o644))
	}
}

// unnameGPUs makes the run one made without --gpu: no target names a GPU,
// in run.json, its command line (and env/client.json's) and steps.jsonl.
func unnameGPUs(tb testing.TB, dir string) {
	drop := func(cmd []string) []string {
		var out []string
		for i := 0; i < len(cmd); i++ {
			if cmd[i] == "--gpu" {
				i++
				continue
			}
			out = append(out, cmd[i])
		}
		return out
	}
	editRun(tb, dir, func(r *schemas.Run) {
		for i := range r.Targets {
			r.Targets[i].GPUs = nil
		}
		r.Command = drop(r.Command)
	})
	var client map[string]any
	getJSON(tb, filepath.Join(dir, "env", "client.json"), &client)
	if cmd, ok := client["command"].([]any); ok {
		var s []string
		for _, a := range cmd {
			s = append(s, a.(string))
		}
		client["command"] = drop(s)
	}
	putJSON(tb, filepath.Join(dir, "env", "client.json"), client)
	editSteps(tb, dir, func(s []schemas.StepTelemetry) []schemas.StepTelemetry {
		for i := range s {
			s[i].GPUs = nil
		}
		return s
	})
}

// extractBundle unpacks a bundle into dir, as tar --zstd -xf does.
func extractBundle(tb testing.TB, b []byte, dir string) {
	tb.Helper()
	zr, err := zstd.NewReader(bytes.NewReader(b))
	must(tb, err)
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		must(tb, err)
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		must(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		data, err := io.ReadAll(tr)
		must(tb, err)
		must(tb, os.WriteFile(p, data, 0o644))
	}
}

// TestExtractedBundle: an honest bundle unpacked into a folder verifies as
// the bundle does, with its key (check 1 has no archive to read); with no
// key it is checked against the key it carries, or not at all.
func TestExtractedBundle(t *testing.T) {
	dir := full.get(t)
	s := testSigner(t)
	b := seal(t, dir, s, bundle.SealOptions{})
	x := filepath.Join(t.TempDir(), "x")
	extractBundle(t, b, x)
	if !verify.IsExtracted(x) || verify.IsExtracted(dir) {
		t.Fatalf("IsExtracted: %v for the folder, %v for the run directory", verify.IsExtracted(x), verify.IsExtracted(dir))
	}
	opts := verify.Options{PublicKey: s.PublicKey(), RenderReport: renderReport, RenderReportTool: testTool().BinarySHA256}
	rep, err := verify.Dir(context.Background(), x, opts)
	must(t, err)
	if rep.Kind != "extracted bundle" || !rep.OK() || !rep.Pinned {
		t.Fatalf("kind %q, OK %v, pinned %v", rep.Kind, rep.OK(), rep.Pinned)
	}
	for _, c := range rep.Checks {
		want := verify.Pass
		if c.ID == verify.CheckArchive || c.ID == verify.CheckTimestamps { // no archive; not pre-registered
			want = verify.Skip
		}
		if c.Status != want && (want != verify.Pass || !passes(c)) {
			t.Errorf("check %d %s: %s %q, want %s", c.ID, c.Name, c.Status, c.Summary, want)
		}
	}
	rep, err = verify.Dir(context.Background(), x, verify.Options{})
	must(t, err)
	if c := rep.Check(verify.CheckSignature); c.Status != verify.Unchecked || rep.OK() {
		t.Errorf("no key: check 2 %s %q, OK %v; want UNCHECKED, not OK", c.Status, c.Summary, rep.OK())
	}
}

// TestProbeSchedule: the cache probe's variants are numbered on from the
// sweep's (check 5); a probe renumbered, its variants re-derived from the
// new numbers, no longer follows the schedule.
func TestProbeSchedule(t *testing.T) {
	t.Parallel()
	base := makeProbeRun(t, t.TempDir(), probeSpec{pairs: 2})
	if c, text := checkOf(verifyDir(t, base), verify.CheckVariants); c.Status != verify.Pass {
		t.Fatalf("honest probe: check 5 %s\n%s", c.Status, text)
	}
	dir := filepath.Join(t.TempDir(), "run")
	copyDir(t, base, dir)
	editRecords(t, dir, "records/b/probe-1.jsonl", func(recs []schemas.Record) []schemas.Record {
		for i := range recs {
			if recs[i].SampleIndex >= 0 {
				reVariant(t, dir, &recs[i], recs[i].Variant+100)
			}
		}
		return recs
	})
	refresh(t, dir)
	c, text := checkOf(verifyDir(t, dir), verify.CheckVariants)
	if c.Status != verify.Fail || !strings.Contains(text, "but the probe's schedule sends clip") {
		t.Errorf("renumbered probe: check 5 %s, want FAIL naming the probe's schedule\n%s", c.Status, text)
	}
}
