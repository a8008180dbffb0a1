package main

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/benchseal/benchseal/internal/sim"
)

// TestLiveViewOnTerminal: with stderr a terminal (a pty, 100 columns) run
// redraws one line in place ("\r" ... "\x1b[K") with the step, its bar,
// the measured requests, the live p50 and p99 of the successes so far and
// the sweep's time left, never as wide as the terminal; each step still
// ends with its plain line. The same run without a terminal prints no
// "\r" and no escape codes.
func TestLiveViewOnTerminal(t *testing.T) {
	dir := t.TempDir()
	corpus, url := demoSim(t, dir, sim.Config{BaseLatency: 30 * time.Millisecond})
	args := func(out string) []string {
		return []string{"run", "--target", "a=" + url, "--corpus", corpus, "--concurrency", "1,2", "--requests", "24", "--repeats", "1", "--out", filepath.Join(dir, out)}
	}

	const cols = 100
	bundle := filepath.Join(dir, "b.tar.zst")
	code, out := onTerminal(t, cols, append(args("tty"), "--seal", bundle)...)
	if code != 0 {
		t.Fatalf("run on a terminal: exit %d\n%s", code, out)
	}
	// verify's stage line, on the terminal it shares with the checklist:
	// redrawn per check, cleared before the checklist is printed.
	if vcode, verified := onTerminal(t, cols, "verify", bundle); vcode != 0 || !strings.Contains(verified, "\rbenchseal: verifying: check 6 of 11: claims (") || !strings.HasSuffix(verified, "\r\x1b[K") {
		t.Errorf("verify on a terminal: exit %d, stderr %q", vcode, verified)
	}
	live := regexp.MustCompile(`^\[\d/\d\] a c=\d r=1 \[[= ]{10,}\] \d+/24 measured [0-9.]+ req/s p50 [0-9.]+(µs|ms|s) p99 [0-9.]+(µs|ms|s) ~[0-9.hms]+ left$`)
	end := regexp.MustCompile(`^benchseal: a c=2 r=1: 24/24 ok 0 errors [0-9.]+ req/s \(step 2 of 2\)$`)
	var frames, withLatency, ends int
	for _, line := range strings.Split(out, "\n") {
		for _, f := range strings.Split(line, "\r") {
			f = strings.TrimSuffix(strings.TrimPrefix(f, "\x1b[K"), "\x1b[K")
			if end.MatchString(f) {
				ends++
			}
			if f == "" || strings.HasPrefix(f, "benchseal: ") {
				continue
			}
			frames++
			if len([]rune(f)) >= cols {
				t.Errorf("a frame of %d columns on a %d-column terminal: %q", len([]rune(f)), cols, f)
			}
			if live.MatchString(f) {
				withLatency++
			}
		}
	}
	if withLatency == 0 {
		t.Errorf("no frame of %d shows the bar, the count, p50, p99 and the time left:\n%q", frames, out)
	}
	if ends != 1 {
		t.Errorf("%d plain lines at the last step's end, want 1:\n%q", ends, out)
	}

	code, _, plain := runCLI(t, args("plain")...)
	if code != 0 {
		t.Fatalf("run without a terminal: exit %d\n%s", code, plain)
	}
	if strings.ContainsAny(plain, "\r\x1b") {
		t.Errorf("terminal codes without a terminal:\n%q", plain)
	}
}

// onTerminal runs benchseal with args, its stderr a pseudo-terminal of
// cols columns, and returns its exit status and what the terminal got
// (its "\r\n" line ends read back as "\n").
func onTerminal(t *testing.T, cols uint16, args ...string) (int, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(read) }() // ends with EIO once tty closes
	code := run(args, strings.NewReader(""), io.Discard, tty)
	tty.Close()
	<-read
	return code, strings.ReplaceAll(screen.String(), "\r\n", "\n")
}
