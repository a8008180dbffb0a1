//go:build unix

package fingerprint

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// readyServer answers 200 on /health once the file flag exists: the
// launched script decides when "its" server is ready.
func readyServer(t *testing.T) (url, flag string) {
	flag = filepath.Join(t.TempDir(), "ready")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(flag); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, flag
}

func launchSpec(t *testing.T, script string) LaunchSpec {
	url, flag := readyServer(t)
	dir := t.TempDir()
	return LaunchSpec{Name: "a", Command: strings.ReplaceAll(script, "READY", "touch "+flag), Dir: dir,
		LogPath: filepath.Join(dir, "launch.log"), ReadyURL: url, ReadyTimeout: 20 * time.Second, Grace: 5 * time.Second}
}

// noSecretIn fails if the secret appears in any file under dir.
func noSecretIn(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret:\n%s", p, b)
			}
		}
		return nil
	})
}

var logLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (stdout|stderr|benchseal) `)

func TestLaunchReadyStopRedacted(t *testing.T) {
	spec := launchSpec(t, `echo "serving with --api-key `+secret+`"; echo "HF_TOKEN=`+secret+`" >&2; READY; exec sleep 60 # --token `+secret)
	p, err := Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
		t.Fatal("exited while running")
	default:
	}
	rec := p.Stop()
	if again := p.Stop(); again != rec {
		t.Errorf("second Stop = %+v", again)
	}
	b, _ := json.Marshal(rec)
	if err := schemas.Validate("launch", b); err != nil {
		t.Error(err)
	}
	if rec.ReadyAt == nil || rec.ReadyAt.Before(rec.StartedAt) || rec.StoppedBy != "sigterm" || rec.Signal != "terminated" ||
		rec.DiedEarly || rec.ExitCode != nil || !strings.Contains(rec.Command, "--token [REDACTED]") {
		t.Errorf("record = %s", b)
	}
	os.WriteFile(filepath.Join(spec.Dir, "launch.json"), b, 0o644)
	log, _ := os.ReadFile(spec.LogPath)
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if !logLine.MatchString(l) {
			t.Errorf("log line without time and stream: %q", l)
		}
	}
	for _, want := range []string{"stdout serving with --api-key [REDACTED]", "stderr HF_TOKEN=[REDACTED]", "benchseal ready:", "benchseal exited: killed by terminated"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	noSecretIn(t, spec.Dir)
	if _, err := Launch(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "create its log") {
		t.Errorf("relaunch over an existing log: %v", err)
	}
}

func TestLaunchSIGKILLAfterGrace(t *testing.T) {
	spec := launchSpec(t, `trap '' TERM; READY; while :; do sleep 0.05; done`)
	spec.Grace = 300 * time.Millisecond
	p, err := Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	rec := p.Stop()
	if rec.StoppedBy != "sigkill" || rec.Signal != "killed" {
		t.Errorf("record = %+v", rec)
	}
	log, _ := os.ReadFile(spec.LogPath)
	if !strings.Contains(string(log), "SIGKILL to the process group") {
		t.Errorf("log:\n%s", log)
	}
}

func TestLaunchExitsBeforeReady(t *testing.T) {
	spec := launchSpec(t, `echo "loading model"; echo "CUDA out of memory, token hf_`+secret+`" >&2; exit 3`)
	_, err := Launch(context.Background(), spec)
	var le *LaunchError
	if !errors.As(err, &le) || !strings.Contains(le.Reason, "exited before it was ready (exit status 3)") ||
		!strings.Contains(err.Error(), "CUDA out of memory") || strings.Contains(err.Error(), secret) {
		t.Fatalf("err = %v", err)
	}
	noSecretIn(t, spec.Dir)
}

func TestLaunchReadyTimeout(t *testing.T) {
	spec := launchSpec(t, `echo waiting; exec sleep 60`)
	spec.ReadyTimeout = 400 * time.Millisecond
	_, err := Launch(context.Background(), spec)
	var le *LaunchError
	if !errors.As(err, &le) || !errors.Is(err, context.DeadlineExceeded) || len(le.Tail) == 0 {
		t.Fatalf("err = %v", err)
	}
	log, _ := os.ReadFile(spec.LogPath)
	if !strings.Contains(string(log), "benchseal exited: killed by terminated") {
		t.Errorf("server not stopped after the timeout:\n%s", log)
	}
}

func TestLaunchInterrupted(t *testing.T) {
	spec := launchSpec(t, `exec sleep 60`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	if _, err := Launch(ctx, spec); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestLaunchCrashMidRun(t *testing.T) {
	spec := launchSpec(t, `READY; sleep 0.5; echo "segfault" >&2; exit 7`)
	p, err := Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("crash not noticed")
	}
	rec := p.Stop()
	if !rec.DiedEarly || rec.ExitCode == nil || *rec.ExitCode != 7 || rec.StoppedBy != "" || rec.EndedAt == nil {
		t.Errorf("record = %+v", rec)
	}
}

// goneServer is a launched server's endpoint the test can take away: once
// closed it refuses connections, as a server that died does.
func goneSpec(t *testing.T, script string) (LaunchSpec, *httptest.Server, string) {
	flag := filepath.Join(t.TempDir(), "ready")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := os.Stat(flag); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	script = strings.ReplaceAll(strings.ReplaceAll(script, "READY", "touch "+flag), "GONE", gone)
	return LaunchSpec{Name: "a", Command: script, Dir: dir, LogPath: filepath.Join(dir, "launch.log"), ReadyURL: srv.URL,
		ReadyTimeout: 20 * time.Second, Grace: 3 * time.Second}, srv, gone
}

// A server that stopped answering and exits on its own a moment later,
// just as benchseal comes to stop it (the run noticed its connect errors
// first), died early: launch.json must not say benchseal stopped it.
func TestLaunchDiesAsStopped(t *testing.T) {
	spec, srv, gone := goneSpec(t, `READY; while [ ! -e GONE ]; do sleep 0.02; done; sleep 0.3; echo "shutting down" >&2; exit 0`)
	p, err := Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if err := os.WriteFile(gone, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := p.Stop()
	if !rec.DiedEarly || rec.StoppedBy != "" || rec.StoppedAnswering || rec.ExitCode == nil || *rec.ExitCode != 0 {
		t.Errorf("record = %+v, want died_early, no stopped_by", rec)
	}
	log, _ := os.ReadFile(spec.LogPath)
	if !strings.Contains(string(log), "stop: the server no longer answers") || strings.Contains(string(log), "SIGTERM") {
		t.Errorf("log:\n%s", log)
	}
}

// One that refuses connections but does not exit is stopped after the
// grace period, and the record says it had stopped answering.
func TestLaunchStoppedAnsweringStillRunning(t *testing.T) {
	spec, srv, _ := goneSpec(t, `READY; exec sleep 60`)
	spec.Grace = 300 * time.Millisecond
	p, err := Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	rec := p.Stop()
	if rec.DiedEarly || rec.StoppedBy != "sigterm" || !rec.StoppedAnswering {
		t.Errorf("record = %+v, want stopped_by sigterm, stopped_answering", rec)
	}
}
