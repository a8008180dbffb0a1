package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyWithRunDirectory: --key given for a run directory, where nothing
// signed is checked against it, is a usage error (exit 2) for verify,
// report and replay, never a pass that says the key was not used.
func TestKeyWithRunDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"schema":"benchseal.run/v1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"verify", dir, "--key", "other.pub"},
		{"report", dir, "--key", "other.pub"},
		{"replay", dir, "--key", "other.pub", "--out", filepath.Join(t.TempDir(), "o")},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 ||
			!strings.Contains(stderr.String(), "benchseal: error: --key: "+dir+" is a run directory: nothing in it is signed") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and the usage error", args[0], code, stdout.String(), stderr.String(), exitUsage)
		}
	}
}
