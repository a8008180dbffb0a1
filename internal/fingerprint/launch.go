//go:build unix

package fingerprint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// Defaults of a LaunchSpec.
const (
	DefaultReadyTimeout = 10 * time.Minute // model loads are slow
	DefaultGrace        = 10 * time.Second // between SIGTERM and SIGKILL
	readyPoll           = 200 * time.Millisecond
	logTailLines        = 20
)

// LaunchSpec says how to start a server under test.
type LaunchSpec struct {
	Name    string // the target
	Command string // run by /bin/sh -c, in its own process group
	Dir     string // working directory; "" is the current one
	// LogPath is created (never overwritten) and receives stdout and
	// stderr, one redacted line each, prefixed with an RFC 3339 UTC time and
	// the stream name.
	LogPath      string
	ReadyURL     string        // base URL; ready = /health or /v1/models answers 200
	ReadyTimeout time.Duration // DefaultReadyTimeout when zero
	Grace        time.Duration // DefaultGrace when zero
}

// LaunchError says why a launched server never became ready; Tail holds
// the last lines of its log (redacted).
type LaunchError struct {
	Name   string
	Reason string
	Tail   []string
	Err    error
}

func (e *LaunchError) Error() string {
	s := fmt.Sprintf("launch %s: %s", e.Name, e.Reason)
	if len(e.Tail) > 0 {
		s += "; last lines of its log:\n  " + strings.Join(e.Tail, "\n  ")
	}
	return s
}

func (e *LaunchError) Unwrap() error { return e.Err }

// Process is a launched server.
type Process struct {
	spec    LaunchSpec
	cmd     *exec.Cmd
	log     *launchLog
	exited  chan struct{}
	stop    sync.Once
	mu      sync.Mutex
	rec     schemas.Launch
	stopped bool
}

// Launch starts spec.Command and waits until it is ready. A server that
// exits or never answers before ReadyTimeout is stopped and reported as a
// *LaunchError with the end of its log.
func Launch(ctx context.Context, spec LaunchSpec) (*Process, error) {
	if spec.ReadyTimeout <= 0 {
		spec.ReadyTimeout = DefaultReadyTimeout
	}
	if spec.Grace <= 0 {
		spec.Grace = DefaultGrace
	}
	f, err := os.OpenFile(spec.LogPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, &LaunchError{Name: spec.Name, Reason: "create its log", Err: err}
	}
	lg := &launchLog{f: f}
	cmd := exec.Command("/bin/sh", "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, errw := lg.stream("stdout"), lg.stream("stderr")
	cmd.Stdout, cmd.Stderr = out, errw
	// Children that keep the pipes open must not hold Wait forever.
	cmd.WaitDelay = spec.Grace
	p := &Process{spec: spec, cmd: cmd, log: lg, exited: make(chan struct{})}
	p.rec = schemas.Launch{Schema: schemas.LaunchSchema, Target: spec.Name, Command: Redact(spec.Command)}
	lg.note("launch: " + p.rec.Command)
	if err := cmd.Start(); err != nil {
		lg.note("start failed: " + err.Error())
		f.Close()
		return nil, &LaunchError{Name: spec.Name, Reason: "start", Err: err}
	}
	p.rec.PID, p.rec.StartedAt = cmd.Process.Pid, time.Now().UTC()
	live.add(p)
	go p.wait(out, errw)
	if err := p.waitReady(ctx); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

func (p *Process) wait(out, errw *LineRedactor) {
	err := p.cmd.Wait()
	live.remove(p)
	out.Flush()
	errw.Flush()
	now := time.Now().UTC()
	p.mu.Lock()
	p.rec.EndedAt = &now
	p.rec.DiedEarly = !p.stopped
	if st := p.cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.rec.Signal = ws.Signal().String()
		} else {
			code := st.ExitCode()
			p.rec.ExitCode = &code
		}
	}
	if err != nil && !errors.As(err, new(*exec.ExitError)) {
		p.rec.Error = err.Error()
	}
	msg := "exited: " + p.describeLocked()
	p.mu.Unlock()
	p.log.note(msg)
	p.log.f.Close()
	close(p.exited)
}

func (p *Process) describeLocked() string {
	switch {
	case p.rec.Signal != "":
		return "killed by " + p.rec.Signal
	case p.rec.ExitCode != nil:
		return fmt.Sprintf("exit status %d", *p.rec.ExitCode)
	default:
		return "unknown status: " + p.rec.Error
	}
}

func (p *Process) waitReady(ctx context.Context) error {
	deadline := time.NewTimer(p.spec.ReadyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	client := &http.Client{Timeout: 5 * time.Second}
	base := strings.TrimSuffix(p.spec.ReadyURL, "/")
	for {
		for _, path := range []string{"/health", "/v1/models"} {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
			if resp, err := client.Do(req); err == nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					now := time.Now().UTC()
					p.mu.Lock()
					p.rec.ReadyAt = &now
					after := now.Sub(p.rec.StartedAt).Seconds()
					p.rec.ReadyAfterS = &after
					p.mu.Unlock()
					p.log.note("ready: " + base + path + " answered 200")
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return &LaunchError{Name: p.spec.Name, Reason: "interrupted while waiting for it to be ready", Err: ctx.Err()}
		case <-p.exited:
			p.mu.Lock()
			why := p.describeLocked()
			p.mu.Unlock()
			return &LaunchError{Name: p.spec.Name, Reason: "exited before it was ready (" + why + ")", Tail: p.log.tail()}
		case <-deadline.C:
			return &LaunchError{Name: p.spec.Name, Reason: fmt.Sprintf("not ready after %v (neither %s/health nor /v1/models answered 200)", p.spec.ReadyTimeout, base),
				Tail: p.log.tail(), Err: context.DeadlineExceeded}
		case <-tick.C:
		}
	}
}

// Exited is closed when the server has exited, whoever ended it; a runner
// selects on it to notice a server that dies mid-run.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Stop ends the server: SIGTERM to its process group, SIGKILL after the
// grace period. A server that no longer answers (neither /health nor
// /v1/models accepts a connection) is on its way out on its own: Stop
// first waits up to the grace period for it to exit, so that one that
// died mid-run is recorded as died_early with no stopped_by, not as
// stopped by benchseal; one that is still there then is stopped as usual
// and recorded with stopped_answering. It is idempotent and returns the
// launch record.
func (p *Process) Stop() schemas.Launch {
	p.stop.Do(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		if why := p.notAnswering(); why != "" {
			p.log.note(fmt.Sprintf("stop: the server no longer answers (%s); waiting up to %v for it to exit on its own", why, p.spec.Grace))
			select {
			case <-p.exited:
				return
			case <-time.After(p.spec.Grace):
			}
			p.mu.Lock()
			p.rec.StoppedAnswering = true
			p.mu.Unlock()
		}
		p.mu.Lock()
		p.stopped = true
		p.rec.StoppedBy = "sigterm"
		p.mu.Unlock()
		p.log.note("stop: SIGTERM to the process group")
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.exited:
			return
		case <-time.After(p.spec.Grace):
		}
		p.mu.Lock()
		p.rec.StoppedBy = "sigkill"
		p.mu.Unlock()
		p.log.note(fmt.Sprintf("stop: still running after %v, SIGKILL to the process group", p.spec.Grace))
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	})
	<-p.exited
	return p.Record()
}

// live is every launched server this process has not yet seen exit, for
// KillLaunched.
var live = &liveSet{m: map[*Process]struct{}{}}

type liveSet struct {
	mu sync.Mutex
	m  map[*Process]struct{}
}

func (l *liveSet) add(p *Process)    { l.mu.Lock(); l.m[p] = struct{}{}; l.mu.Unlock() }
func (l *liveSet) remove(p *Process) { l.mu.Lock(); delete(l.m, p); l.mu.Unlock() }

// KillLaunched sends SIGKILL to the process group of every server this
// process launched that has not exited yet, whether it is still getting
// ready, measured or being stopped, and returns how many it signalled. It
// is for a process about to exit at once (a second Ctrl-C): launched
// servers run in their own process group, so the terminal's signal never
// reaches them, and one left running would hold its port and GPU memory.
// It does not wait for them to exit.
func KillLaunched() int {
	live.mu.Lock()
	defer live.mu.Unlock()
	n := 0
	for p := range live.m {
		p.log.note("stop: benchseal is exiting at once (interrupted again), SIGKILL to the process group")
		if syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// Record is the launch record so far (complete once Exited is closed).
func (p *Process) Record() schemas.Launch {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rec
}

// launchLog serialises the lines of both streams into one file and keeps
// the last few for error messages.
type launchLog struct {
	mu    sync.Mutex
	f     *os.File
	lines []string
	err   error
}

func (l *launchLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.f.Write(b)
	}
	l.lines = append(l.lines, strings.TrimSuffix(string(b), "\n"))
	if len(l.lines) > logTailLines {
		l.lines = l.lines[len(l.lines)-logTailLines:]
	}
	return len(b), nil // a full disk must not block the server's pipes
}

func stamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000000000Z") }

func (l *launchLog) stream(name string) *LineRedactor {
	return NewLineRedactor(l, func() string { return stamp() + " " + name + " " })
}

func (l *launchLog) note(s string) { l.Write([]byte(stamp() + " benchseal " + Redact(s) + "\n")) }

func (l *launchLog) tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// notAnswering says why the server refuses connections at its ready URL
// (both /health and /v1/models), or "" when it answers at all, whatever
// the status, or is merely slow (a timeout is a busy server, not a gone
// one).
func (p *Process) notAnswering() string {
	if p.spec.ReadyURL == "" {
		return ""
	}
	client := &http.Client{Timeout: 2 * time.Second}
	base := strings.TrimSuffix(p.spec.ReadyURL, "/")
	var why string
	for _, path := range []string{"/health", "/v1/models"} {
		resp, err := client.Get(base + path)
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			return ""
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return ""
		}
		if why == "" {
			why = err.Error()
		}
	}
	return why
}
