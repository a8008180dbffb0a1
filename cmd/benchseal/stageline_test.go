package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the stage line's ticker.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Without a terminal a stage line is silent for a command shorter than
// its heartbeat, then prints the stage once a heartbeat until Close; on a
// terminal it redraws at each stage and Close clears it.
func TestStageLine(t *testing.T) {
	var quiet lockedBuffer
	s := &stageLine{w: &quiet, verb: "verifying", heartbeat: time.Hour, now: time.Now}
	s.begin()
	s.Stage("check 1 of 11: archive")
	s.Close()
	if quiet.String() != "" {
		t.Errorf("a short verify printed %q", quiet.String())
	}

	var log lockedBuffer
	s = &stageLine{w: &log, verb: "verifying", heartbeat: 5 * time.Millisecond, now: time.Now}
	s.begin()
	s.Stage("check 5 of 11: variants")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "\n") && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	s.Close()
	out := log.String()
	if !strings.HasPrefix(out, "benchseal: verifying: check 5 of 11: variants (") || !strings.HasSuffix(out, " so far)\n") || strings.Contains(out, "\r") {
		t.Errorf("heartbeat %q", out)
	}
	time.Sleep(20 * time.Millisecond)
	if log.String() != out {
		t.Errorf("lines after Close: %q", log.String()[len(out):])
	}

	var term lockedBuffer
	// A clock that stands still: the time so far reads 0s however slow
	// the host (the line's own ticker, each second, only repeats a frame).
	still := time.Unix(1e9, 0)
	s = &stageLine{w: &term, verb: "sealing", terminal: true, of: 2, heartbeat: time.Hour, now: func() time.Time { return still }}
	s.begin()
	s.Stage("a")
	s.Stage("b")
	s.Close()
	got := term.String()
	if !strings.HasPrefix(got, "\rbenchseal: sealing: a (1 of 2 stages, 0s so far)\x1b[K") || !strings.Contains(got, "\rbenchseal: sealing: b (2 of 2 stages, 0s so far)\x1b[K") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("terminal %q", got)
	}
}
