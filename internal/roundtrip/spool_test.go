package roundtrip

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"
)

func tempSpool(t testing.TB, behind int64) *spool {
	f, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return newSpool(f, behind)
}

// TestSpoolKeepsEveryAnswer: answers handed over from many goroutines at
// once are all written, each readable back at its place, byte for byte,
// though the caller's buffer is reused right after put.
func TestSpoolKeepsEveryAnswer(t *testing.T) {
	s := tempSpool(t, 1<<30)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			buf := make([]byte, 0, 64<<10)
			for i := range 50 {
				buf = append(buf[:0], bytes.Repeat([]byte{byte(w), byte(i)}, 1000+w*100+i)...)
				s.put(kept{target: fmt.Sprintf("w%d-%d", w, i)}, buf)
				clear(buf) // the caller's bytes are its own again
			}
		})
	}
	wg.Wait()
	s.close()
	if s.err != nil || s.dropped != 0 || len(s.kept) != 400 {
		t.Fatalf("err %v, dropped %d, kept %d: want all 400 kept", s.err, s.dropped, len(s.kept))
	}
	for _, k := range s.kept {
		var w, i int
		fmt.Sscanf(k.target, "w%d-%d", &w, &i)
		got := make([]byte, k.n)
		if _, err := s.f.ReadAt(got, k.off); err != nil {
			t.Fatal(err)
		}
		if want := bytes.Repeat([]byte{byte(w), byte(i)}, 1000+w*100+i); !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes at %d differ from what was put", k.target, k.n, k.off)
		}
	}
	s.put(kept{}, []byte("late"))
	if len(s.kept) != 400 || s.dropped != 0 {
		t.Fatalf("an answer after close was kept (%d) or counted as dropped (%d)", len(s.kept), s.dropped)
	}
}

// TestSpoolDropsPastBehind: while the writer writes nothing, the queue
// holds at most behind bytes; an answer past it is counted, not kept,
// and put does not wait for the writer.
func TestSpoolDropsPastBehind(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := &spool{f: f, behind: 10_000, wake: make(chan struct{}, 1), done: make(chan struct{})} // no writer yet
	for i, n := range []int{6_000, 3_000, 2_000, 1_000} {
		s.put(kept{target: fmt.Sprint(i)}, make([]byte, n)) // 6,000 + 3,000 fit; 2,000 would make 11,000
	}
	if s.dropped != 1 || s.queued != 10_000 {
		t.Fatalf("dropped %d, %d bytes queued: want the 2,000-byte answer dropped and 10,000 queued", s.dropped, s.queued)
	}
	go s.write()
	s.close()
	var got []string
	for _, k := range s.kept {
		got = append(got, k.target)
	}
	if fmt.Sprint(got) != "[0 1 3]" || s.queued != 0 {
		t.Fatalf("kept %v, %d bytes still queued: want [0 1 3] written, none queued", got, s.queued)
	}
}

// BenchmarkSpoolPut is a worker's whole cost of keeping one 240 KB
// answer (10 s of 24 kHz 16-bit audio) for the round trip: the hand-off,
// with the writer draining in the background.
func BenchmarkSpoolPut(b *testing.B) {
	s := tempSpool(b, 1<<40) // nothing dropped: the hand-off alone
	body := bytes.Repeat([]byte{1, 2, 3}, 80_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.put(kept{}, body)
		}
	})
	b.StopTimer()
	s.close()
}
