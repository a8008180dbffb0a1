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
		// GPU facts are held only for targets whose GPUs were named and
		// sampled: env/gpu.json alone describes the client's host.
		{name: "gpus-not-named", class: "fairness", check: 8, status: verify.Warn, text: "is not observed: no GPU was named for it (--gpu",
			doctor: func(tb testing.TB, dir string) {
				unnameGPUs(tb, dir)
				refresh(tb, dir)
			},
			assert: func(tb testing.TB, rep *verify.Report) {
				if c := rep.Check(verify.CheckFairness); strings.Contains(c.Summary, "same GPU model") {
					tb.Errorf("check 8 says %q for targets whose GPUs nobody named", c.Summary)
				}
			}},
		{name: "gpu-never-sampled", class: "fairness", check: 8, status: verify.Warn, text: "GPU 1 named for it (--gpu) was never sampled",
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
		if c.ID == verify.CheckArchive {
			want = verify.Skip
		}
		if c.Status != want {
			t.Errorf("check %d %s: %s %q, want %s", c.ID, c.Name, c.Status, c.Summary, want)
		}
	}
	rep, err = verify.Dir(context.Background(), x, verify.Options{})
	must(t, err)
	if c := rep.Check(verify.CheckSignature); c.Status != verify.Unchecked || rep.OK() {
		t.Errorf("no key: check 2 %s %q, OK %v; want UNCHECKED, not OK", c.Status, c.Summary, rep.OK())
	}
}
