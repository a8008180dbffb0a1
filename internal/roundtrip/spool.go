package roundtrip

import (
	"os"
	"sync"
)

// DefaultSpoolBehind bounds how many bytes of answers may wait in memory
// for the spool writer: past it an answer is not kept (and counted), so
// that a disk that stalls the writer never stalls a worker.
const DefaultSpoolBehind = 256 << 20

// spool keeps answers off the timed path. A worker's whole cost per
// answer is a copy into a pooled buffer and an append under a lock held
// for nothing else; one goroutine writes the queued answers to the
// unlinked spool file. A closed-loop worker sends its next request right
// after it hands an answer over, so nothing it waits on between requests
// may be a write (a 240 KB WriteAt under dirty-page throttling stalled
// workers for hundreds of milliseconds).
type spool struct {
	f      *os.File
	behind int64 // the most bytes queued at once

	mu      sync.Mutex
	queue   []pending
	queued  int64 // bytes in queue
	closed  bool
	dropped int // answers not kept: the writer was behind by more than behind
	wake    chan struct{}
	done    chan struct{}

	// The writer's alone until done is closed.
	size int64
	kept []kept
	err  error // the first write that failed
}

// pending is an answer handed to the writer.
type pending struct {
	k   kept
	buf *[]byte
}

var bufs = sync.Pool{New: func() any { return new([]byte) }}

// newSpool starts the writer of f.
func newSpool(f *os.File, behind int64) *spool {
	s := &spool{f: f, behind: behind, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.write()
	return s
}

// put hands one answer to the writer: body is copied, nothing is
// written here (any goroutine).
func (s *spool) put(k kept, body []byte) {
	b := bufs.Get().(*[]byte)
	*b = append((*b)[:0], body...)
	k.n = int64(len(body))
	s.mu.Lock()
	if s.closed || s.queued+k.n > s.behind {
		if !s.closed {
			s.dropped++
		}
		s.mu.Unlock()
		bufs.Put(b)
		return
	}
	s.queued += k.n
	s.queue = append(s.queue, pending{k: k, buf: b})
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// write is the writer: it drains the queue into the file until close.
func (s *spool) write() {
	defer close(s.done)
	var batch []pending
	for {
		s.mu.Lock()
		batch, s.queue = s.queue, batch[:0]
		closed := s.closed
		s.mu.Unlock()
		var n int64
		for _, p := range batch {
			s.writeOne(p)
			n += p.k.n
		}
		clear(batch)
		s.mu.Lock()
		s.queued -= n
		empty := len(s.queue) == 0
		s.mu.Unlock()
		if closed && empty {
			return
		}
		if empty {
			<-s.wake
		}
	}
}

// writeOne appends one answer to the file and keeps its place.
func (s *spool) writeOne(p pending) {
	defer bufs.Put(p.buf)
	if s.err != nil {
		return
	}
	if _, err := s.f.WriteAt(*p.buf, s.size); err != nil {
		s.err = err
		return
	}
	p.k.off, s.size = s.size, s.size+p.k.n
	s.kept = append(s.kept, p.k)
}

// close stops taking answers and waits until every one taken is written.
func (s *spool) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return
	}
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.done
}
