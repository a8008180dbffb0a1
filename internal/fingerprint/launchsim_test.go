//go:build unix

package fingerprint

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildBenchseal builds the real binary once per test run.
func buildBenchseal(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build benchseal")
	}
	bin := filepath.Join(t.TempDir(), "benchseal")
	cmd := exec.Command(goBin, "build", "-o", bin, "github.com/benchseal/benchseal/cmd/benchseal")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// A real `benchseal sim` launched with a token in its command and printing
// one in its log: readiness, self-description, /metrics and a graceful
// stop, and the token nowhere on disk.
func TestLaunchRealSim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the benchseal binary")
	}
	bin := buildBenchseal(t)
	addr := freePort(t)
	dir := t.TempDir()
	cmd := fmt.Sprintf(`echo "login with hf_%s" >&2; HF_TOKEN=%s exec %s sim --addr %s --ready-delay 300ms --cache --log-requests`, secret, secret, bin, addr)
	p, err := Launch(context.Background(), LaunchSpec{Name: "sim", Command: cmd, LogPath: filepath.Join(dir, "launch.log"),
		ReadyURL: "http://" + addr, ReadyTimeout: 30 * time.Second, Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c := Capture(context.Background(), http.DefaultClient, "sim", "http://"+addr, http.Header{"Authorization": {"Bearer " + secret}}, "before")
	b := mustValidate(t, "probe", c)
	os.WriteFile(filepath.Join(dir, "probes-before.json"), b, 0o644)
	raw, fams, err := ScrapeMetrics(context.Background(), http.DefaultClient, "http://"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "metrics-before.prom"), raw, 0o644)
	if _, ok := CacheCounters(fams)[VLLMMMCacheHits]; !ok {
		t.Errorf("sim /metrics lacks %s:\n%s", VLLMMMCacheHits, raw)
	}
	rec := p.Stop()
	mb := mustValidate(t, "launch", rec)
	os.WriteFile(filepath.Join(dir, "launch.json"), mb, 0o644)
	if rec.ReadyAt == nil || *rec.ReadyAfterS < 0.3 || rec.ExitCode == nil || *rec.ExitCode != 0 || rec.StoppedBy != "sigterm" || rec.DiedEarly {
		t.Errorf("record = %s", mb)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "launch.log"))
	if !bytes.Contains(log, []byte("listening on http://"+addr)) || !strings.Contains(string(log), "login with [REDACTED]") {
		t.Errorf("launch.log:\n%s", log)
	}
	noSecretIn(t, dir)
}
