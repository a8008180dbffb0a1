package par_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/benchseal/benchseal/internal/par"
)

func TestForEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		seen := make([]atomic.Int32, n)
		var maxW atomic.Int32
		par.For(n, func(w, i int) bool {
			seen[i].Add(1)
			if int32(w) > maxW.Load() {
				maxW.Store(int32(w))
			}
			return true
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d run %d times", n, i, c)
			}
		}
		if n > 0 && int(maxW.Load()) >= par.Workers(n) {
			t.Fatalf("n=%d: worker %d, want < %d", n, maxW.Load(), par.Workers(n))
		}
	}
	if par.Workers(1) != 1 || par.Workers(1<<20) != runtime.GOMAXPROCS(0) {
		t.Fatalf("Workers: %d, %d", par.Workers(1), par.Workers(1<<20))
	}
}

// A worker that returns false takes no further index.
func TestForStop(t *testing.T) {
	var ran atomic.Int32
	par.For(100, func(w, i int) bool { ran.Add(1); return false })
	if got, w := int(ran.Load()), par.Workers(100); got != w {
		t.Fatalf("ran %d bodies, want one per worker (%d)", got, w)
	}
}
