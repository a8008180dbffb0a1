package claims

import (
	"cmp"
	"slices"

	"github.com/benchseal/benchseal/schemas"
)

// Whether a server kept up with an open loop's offered rate, from one
// level's figures (KeepUpOf). A server that keeps up serves each request
// in about the same time whenever it arrives; one that does not builds a
// queue, in the server or (with --max-concurrency) in the client, so the
// latency from the planned arrival grows over the level. The measured
// requests are split in thirds by planned time: KeepUpGrowth bounds the
// median latency from arrival of the last third over the first third's.
// At 1.5 a server in a stable queue is far inside it (an M/D/c queue at
// 70 % load: the thirds' medians agree within a few per cent at 30
// requests a third), while one offered 10 % over its capacity for 10 s
// of 100 ms requests exceeds it (its queue grows by 1 s).
const (
	KeepUpGrowth = 1.5
	// KeepUpMinThird is the fewest successful requests each third needs
	// for its median to be a measurement (30 a level); fewer: not
	// observed.
	KeepUpMinThird = 10
	// KeepUpMaxFailed is the failed share of the level's requests above
	// which the server did not keep up (it refused or dropped what it
	// could not serve: the successes' latency then says nothing of the
	// rest).
	KeepUpMaxFailed = 0.01
)

// KeepUp is a level's verdict on whether the server kept up.
type KeepUp int

const (
	KeepUpNotObserved KeepUp = iota // too few requests, or not an open loop
	KeptUp                          // latency from arrival did not grow, few failed
	NotKeptUp                       // latency from arrival grew, or requests failed
)

// keepUp fills the growth figures of an open-loop repeat into m from its
// records (measured ones): ArrivalGrowth, the median latency from the
// planned arrival of the successful requests in the last third by planned
// time over the first third's (nil when a third has fewer than
// KeepUpMinThird successes), and BacklogGrowth, the mean number of
// requests arrived and not yet ended at each planned arrival, over the
// last third less over the first third (failures included: they were in
// flight too).
func keepUp(m *schemas.Metrics, recs []schemas.Record) {
	var meas []schemas.Record
	for _, r := range recs {
		if r.Phase == schemas.PhaseMeasure && r.PlannedNs != 0 {
			meas = append(meas, r)
		}
	}
	n := len(meas)
	if n < 3 {
		return
	}
	slices.SortFunc(meas, func(a, b schemas.Record) int {
		return cmp.Or(cmp.Compare(a.PlannedNs, b.PlannedNs), cmp.Compare(a.Seq, b.Seq))
	})
	ends := make([]int64, n)
	for i, r := range meas {
		ends[i] = r.EndNs
	}
	slices.Sort(ends)
	// At request i's arrival the requests before it that have not ended
	// are in the backlog: i less those ended by then (only a request
	// planned earlier can have ended by its planned time).
	backlog := func(i int) float64 {
		done, _ := slices.BinarySearch(ends, meas[i].PlannedNs+1)
		return float64(i - min(done, i))
	}
	third := n / 3
	var first, last []float64
	var bf, bl float64
	for i := range third {
		j := n - third + i
		bf += backlog(i)
		bl += backlog(j)
		if r := meas[i]; r.OK {
			first = append(first, seconds(r.EndNs-r.PlannedNs))
		}
		if r := meas[j]; r.OK {
			last = append(last, seconds(r.EndNs-r.PlannedNs))
		}
	}
	m.BacklogGrowth = ptr((bl - bf) / float64(third))
	if len(first) >= KeepUpMinThird && len(last) >= KeepUpMinThird {
		if a := median(first); a > 0 {
			m.ArrivalGrowth = ptr(median(last) / a)
		}
	}
}

// KeepUpOf is the verdict on a level from its figures (m: the median over
// repeats, as claims.json's summary row holds them) and the failed share
// of its requests over repeats: did not keep up when more than
// KeepUpMaxFailed failed or the latency from arrival grew by more than
// KeepUpGrowth; not observed without ArrivalGrowth; kept up otherwise.
func KeepUpOf(m schemas.Metrics, failed float64) KeepUp {
	switch {
	case failed > KeepUpMaxFailed:
		return NotKeptUp
	case m.ArrivalGrowth == nil:
		return KeepUpNotObserved
	case *m.ArrivalGrowth > KeepUpGrowth:
		return NotKeptUp
	}
	return KeptUp
}
