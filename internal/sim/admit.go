package sim

import (
	"context"
	"errors"
	"sync"
)

// errShed is returned by admit when the queue is full.
var errShed = errors.New("server overloaded: queue full")

// admission lets at most max requests run at once; the others wait in FIFO
// order. Its bounds are the persona's engine's (its row's Shedding):
//
//   - maxQueue (0: unlimited) bounds the waiters alone (SGLang-Omni's
//     --max_queued_requests: running + queued under sustained load), or,
//     with inFlight, the slots in flight, running and waiting together
//     (vLLM's --max-num-queued-reqs since PR #49445: a request is refused
//     when unfinished + n > the cap, n the engine requests it adds);
//   - maxTokens (0: unlimited) bounds the prompt tokens of the requests
//     still in prefill, waiting or prefilling (vLLM's
//     --max-num-queued-tokens, the same PR): a ticket leaves that count at
//     prefilled or at release, whichever comes first.
//
// The lock is held only to move a request between states, never while it
// is served, so concurrent requests are not serialised.
type admission struct {
	mu        sync.Mutex
	max       int // 0: unlimited
	maxQueue  int // 0: unlimited
	inFlight  bool
	maxTokens int // 0: unlimited
	running   int
	queue     []chan struct{}
	slots     int // slots in flight (inFlight's count)
	prefill   int // prompt tokens of the requests in prefill
}

// ask is what a request needs of admission: slots (the engine requests
// it makes, at least 1) and its prompt tokens.
type ask struct{ slots, tokens int }

// ticket is an admitted request: release it exactly once.
type ticket struct {
	a         *admission
	ask       ask
	prefillMu sync.Once
	relOnce   sync.Once
}

// admit blocks until the request may run and reports whether it had to
// wait. It returns errShed at once when a bound would be passed, or ctx's
// error if the client went away while waiting. accepted, if not nil, is
// called once the request has passed the bounds, before it waits: where
// the engine answers 200 once it has accepted a request (vLLM), a
// stream's headers go out there. On success the caller must call the
// ticket's release exactly once.
func (a *admission) admit(ctx context.Context, q ask, accepted func()) (t *ticket, queued bool, err error) {
	if q.slots < 1 {
		q.slots = 1
	}
	t = &ticket{a: a, ask: q}
	a.mu.Lock()
	switch {
	case a.inFlight && a.maxQueue > 0 && a.slots+q.slots > a.maxQueue,
		!a.inFlight && a.maxQueue > 0 && a.max > 0 && a.running >= a.max && len(a.queue) >= a.maxQueue,
		a.maxTokens > 0 && a.prefill+q.tokens > a.maxTokens:
		a.mu.Unlock()
		return nil, false, errShed
	}
	a.slots += q.slots
	a.prefill += q.tokens
	if a.max <= 0 || a.running < a.max {
		a.running++
		a.mu.Unlock()
		if accepted != nil {
			accepted()
		}
		return t, false, nil
	}
	turn := make(chan struct{})
	a.queue = append(a.queue, turn)
	a.mu.Unlock()
	if accepted != nil {
		accepted()
	}
	select {
	case <-turn:
		return t, true, nil
	case <-ctx.Done():
		a.mu.Lock()
		for i, c := range a.queue {
			if c == turn {
				a.queue = append(a.queue[:i], a.queue[i+1:]...)
				a.slots -= q.slots
				a.prefill -= q.tokens
				a.mu.Unlock()
				return nil, true, ctx.Err()
			}
		}
		a.mu.Unlock()
		// The turn was handed over just as the client left: pass it on.
		t.release()
		return nil, true, ctx.Err()
	}
}

// prefilled takes the request's prompt tokens out of the prefill count
// (its first token is out); release does it too, once.
func (t *ticket) prefilled() {
	if t == nil {
		return
	}
	t.prefillMu.Do(func() {
		t.a.mu.Lock()
		t.a.prefill -= t.ask.tokens
		t.a.mu.Unlock()
	})
}

// release ends a running request and hands its slot to the longest
// waiter; a nil ticket (a cache hit, never admitted) releases nothing.
func (t *ticket) release() {
	if t == nil {
		return
	}
	t.prefilled()
	t.relOnce.Do(func() {
		a := t.a
		a.mu.Lock()
		defer a.mu.Unlock()
		a.slots -= t.ask.slots
		if len(a.queue) > 0 {
			close(a.queue[0])
			a.queue[0] = nil
			a.queue = a.queue[1:]
			return // the slot moves to the waiter: running is unchanged
		}
		a.running--
	})
}

// state reports how many requests run and wait, for /metrics.
func (a *admission) state() (running, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running, len(a.queue)
}
