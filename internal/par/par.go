// Package par is the one owner of benchseal's parallel-for: a fixed set of
// workers, one per core at most, each taking the next index from a shared
// counter until none is left. It is what the runner uses to derive a
// step's variants and verify to check records files and re-derive
// variants; a new user calls For rather than writing the loop again.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is how many workers For starts for n items: GOMAXPROCS, at most n.
func Workers(n int) int { return max(0, min(runtime.GOMAXPROCS(0), n)) }

// For calls body(w, i) once for every i in [0, n) that is taken, from
// Workers(n) goroutines; w is the calling worker's number in
// [0, Workers(n)), for per-worker state without locks. Indices are taken
// in increasing order. A worker whose body returns false takes no further
// index; the others go on. For returns when every worker has stopped.
func For(n int, body func(w, i int) bool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range Workers(n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || !body(w, i) {
					return
				}
			}
		})
	}
	wg.Wait()
}
