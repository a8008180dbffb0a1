package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/term"
)

// stageLine shows where a long command is (verify's checks, seal's
// archive) while it works. On a terminal it is one line on stderr,
// redrawn in place each second and at each stage, cleared by Close
// before the command prints its result:
//
//	benchseal: verifying: check 5 variants (4 of 11 stages, 12s so far)
//
// Without a terminal it prints nothing for a command that ends within
// heartbeat, then the same words once every heartbeat (a log shows a long
// verify alive; a script's short one stays silent).
type stageLine struct {
	w         io.Writer
	verb      string // "verifying"
	terminal  bool
	heartbeat time.Duration
	now       func() time.Time

	mu     sync.Mutex
	stage  string
	n, of  int // stages begun, of about this many (0: unknown)
	start  time.Time
	drawn  bool
	stop   chan struct{}
	closed bool
}

// newStageLine starts a stage line on e's stderr for a command that does
// about stages stages (0: unknown).
func newStageLine(e *env, verb string, stages int) *stageLine {
	s := &stageLine{w: e.stderr, verb: verb, of: stages, heartbeat: DefaultStageHeartbeat, now: time.Now}
	if f, ok := e.stderr.(interface{ Fd() uintptr }); ok {
		s.terminal = term.IsTerminal(int(f.Fd()))
	}
	s.begin()
	return s
}

// DefaultStageHeartbeat is how often a stage line without a terminal
// prints, as run's progress does within a step.
const DefaultStageHeartbeat = 15 * time.Second

func (s *stageLine) begin() {
	s.start, s.stop = s.now(), make(chan struct{})
	every := s.heartbeat
	if s.terminal {
		every = time.Second
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.mu.Lock()
				if !s.closed {
					s.show()
				}
				s.mu.Unlock()
			}
		}
	}()
}

// Stage says the command has begun stage name.
func (s *stageLine) Stage(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.stage = name
	s.n++
	if s.terminal {
		s.show()
	}
}

// show draws the line (under mu): redrawn on a terminal, appended
// otherwise.
func (s *stageLine) show() {
	if s.stage == "" {
		return
	}
	place := ""
	if s.of > 0 {
		place = fmt.Sprintf("%d of %d stages, ", min(s.n, s.of), s.of)
	}
	line := fmt.Sprintf("benchseal: %s: %s (%s%s so far)", s.verb, s.stage, place, roughSeconds(s.now().Sub(s.start)))
	if s.terminal {
		fmt.Fprintf(s.w, "\r%s\x1b[K", line)
		s.drawn = true
		return
	}
	fmt.Fprintln(s.w, line)
}

// Close stops the line and clears it from the terminal.
func (s *stageLine) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	close(s.stop)
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[K")
	}
}

// roughSeconds words d to the second (to a tenth below 10 s).
func roughSeconds(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
