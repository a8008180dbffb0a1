package report

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/verify"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./internal/report -update rewrites it; review the diff)\n%s", path, firstDiff(got, want))
	}
}

func firstDiff(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w []byte
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if !bytes.Equal(g, w) {
			return "line " + itoa(i+1) + ":\n got: " + string(g) + "\nwant: " + string(w)
		}
	}
	return ""
}

func itoa(i int) string { return string(bytes.TrimSpace([]byte(fmtInt(i)))) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func render(t *testing.T, in Input) (md, page []byte, svgs map[Chart][]byte) {
	t.Helper()
	var a, b bytes.Buffer
	if err := Markdown(&a, in); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&b, in); err != nil {
		t.Fatal(err)
	}
	svgs = map[Chart][]byte{}
	for _, ch := range ChartsOf(in) {
		var s bytes.Buffer
		if err := SVG(&s, in, ch); err != nil {
			t.Fatal(err)
		}
		svgs[ch] = s.Bytes()
	}
	return a.Bytes(), b.Bytes(), svgs
}

// fixtureVerify is a verification of the fixture as benchseal verify
// words it: a pinned key, and the fairness findings of two engines set up
// differently.
func fixtureVerify() *verify.Report {
	r := &verify.Report{Source: "evidence.tar.zst", Kind: "bundle", Pinned: true, Passed: 7, Warned: 1}
	for i, name := range []string{"archive", "signature", "subjects", "schemas", "variants", "claims", "protocol"} {
		r.Checks = append(r.Checks, verify.Check{ID: i + 1, Name: name, Status: verify.Pass, Summary: "held"})
	}
	r.Checks = append(r.Checks, verify.Check{ID: 8, Name: "fairness", Status: verify.Warn,
		Summary: "2 targets: the comparison is not shown fair (see below); held: same GPU model and driver; no cache hits",
		Findings: []verify.Finding{
			{Status: verify.Warn, Path: "servers/vllm-omni/probes-before.json", Reason: "max running requests differs: sglang-omni has 16, vllm-omni has 8"},
			{Status: verify.Warn, Path: "servers/vllm-omni/probes-before.json", Reason: "GPU memory fraction differs: sglang-omni has 0.9, vllm-omni has 0.88"},
		}})
	return r
}

func TestGolden(t *testing.T) {
	in := fixture()
	in.Verify = fixtureVerify()
	in.LinkCharts = true
	md, page, svgs := render(t, in)
	golden(t, "REPORT.md", md)
	golden(t, "report.html", page)
	for ch, b := range svgs {
		golden(t, ch.File(), b)
	}
	in.LinkCharts = false
	md, _, _ = render(t, in)
	golden(t, "stdout.md", md)

	// Chinese: the same numbers and verdicts, other words.
	in.LinkCharts, in.Lang = true, "zh"
	md, page, svgs = render(t, in)
	golden(t, "zh/REPORT.md", md)
	golden(t, "zh/report.html", page)
	golden(t, "zh/"+Latency.File(), svgs[Latency])
}

// pageMarkdown is what report.html holds (its htmlOnly blocks too, none
// of REPORT.md's mdOnly stand-ins), written as Markdown: the tables that
// only the page has (per-stage tables, RTFx, a telemetry table of the
// client's CPU alone), matched as REPORT.md's rows are.
func pageMarkdown(t *testing.T, in Input) []byte {
	t.Helper()
	var a bytes.Buffer
	w := bufio.NewWriter(&a)
	for i, bl := range htmlBlocks(build(in)) {
		if i > 0 {
			w.WriteString("\n")
		}
		writeMarkdown(w, bl, in.LinkCharts)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return a.Bytes()
}
