package sim

import (
	"context"
	"errors"
	"sync"
)

// errShed is returned by admit when the queue is full.
var errShed = errors.New("server overloaded: queue full")

// admission lets at most max requests run at once; the others wait in FIFO
// order, at most maxQueue of them (0: unlimited). The lock is held only to
// move a request between states, never while it is served, so concurrent
// requests are not serialised.
type admission struct {
	mu       sync.Mutex
	max      int // 0: unlimited
	maxQueue int // 0: unlimited
	running  int
	queue    []chan struct{}
}

// admit blocks until the request may run and reports whether it had to
// wait. It returns errShed at once when the queue is full, or ctx's error if
// the client went away while waiting. On success the caller must call
// release exactly once.
func (a *admission) admit(ctx context.Context) (queued bool, err error) {
	a.mu.Lock()
	if a.max <= 0 || a.running < a.max {
		a.running++
		a.mu.Unlock()
		return false, nil
	}
	if a.maxQueue > 0 && len(a.queue) >= a.maxQueue {
		a.mu.Unlock()
		return false, errShed
	}
	turn := make(chan struct{})
	a.queue = append(a.queue, turn)
	a.mu.Unlock()
	select {
	case <-turn:
		return true, nil
	case <-ctx.Done():
		a.mu.Lock()
		for i, c := range a.queue {
			if c == turn {
				a.queue = append(a.queue[:i], a.queue[i+1:]...)
				a.mu.Unlock()
				return true, ctx.Err()
			}
		}
		a.mu.Unlock()
		// The turn was handed over just as the client left: pass it on.
		a.release()
		return true, ctx.Err()
	}
}

// release ends a running request and hands its slot to the longest waiter.
func (a *admission) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) > 0 {
		close(a.queue[0])
		a.queue[0] = nil
		a.queue = a.queue[1:]
		return // the slot moves to the waiter: running is unchanged
	}
	a.running--
}

// state reports how many requests run and wait, for /metrics.
func (a *admission) state() (running, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running, len(a.queue)
}
