package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
)

func TestReplayTolerance(t *testing.T) {
	for in, want := range map[string]float64{"10%": 0.10, "10": 0.10, " 2.5 % ": 0.025, "0%": 0, "200%": 2} {
		got, err := parsePercent("--tolerance", in)
		if err != nil || got != want {
			t.Errorf("parsePercent(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "-1%", "ten", "NaN", "Inf%", "0.1x"} {
		if _, err := parsePercent("--tolerance", in); err == nil {
			t.Errorf("parsePercent(%q) accepted", in)
		}
	}
}

// TestReplayRedactedField: a form field redacted when sealed (an API key in
// --form) is not sent as "[REDACTED]": replay refuses until --form gives the
// value, and the value is then sent but written nowhere.
func TestReplayRedactedField(t *testing.T) {
	dir := t.TempDir()
	corpus, url := demoSim(t, dir, sim.Config{BaseLatency: 20 * time.Millisecond}) // a latency the machine's noise does not swamp: the replay compares it
	const secret = "sk-replay-secret-0123456789abcdef"
	cli := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	bundlePath := filepath.Join(dir, "b.tar.zst")
	if code, _, stderr := cli("run", "--target", "a="+url, "--corpus", corpus, "--concurrency", "1", "--requests", "5",
		"--repeats", "1", "--form", "api_key="+secret, "--out", filepath.Join(dir, "run"), "--seal", bundlePath); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	code, _, stderr := cli("replay", bundlePath, "--out", filepath.Join(dir, "refused"))
	if code != exitUsage || !strings.Contains(stderr, `form field "api_key" was redacted when sealed`) || !strings.Contains(stderr, "--form api_key=VALUE") {
		t.Fatalf("replay without --form: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "refused")); !os.IsNotExist(err) {
		t.Errorf("a refused replay left %s behind (%v)", filepath.Join(dir, "refused"), err)
	}
	out := filepath.Join(dir, "replay")
	code, stdout, stderr := cli("replay", bundlePath, "--out", out, "--form", "api_key="+secret, "--tolerance", "1000%")
	if code != 0 {
		t.Fatalf("replay with --form: exit %d:\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, secret) {
		t.Error("the secret was printed")
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}
