package bench

import (
	"slices"
	"testing"
	"time"
)

// TestSleepFineNeverEarly: sleepFine sleeps at least what it is asked, so
// the open loop never sends a request before its planned time.
func TestSleepFineNeverEarly(t *testing.T) {
	for _, d := range []time.Duration{0, time.Microsecond, 50 * time.Microsecond, 300 * time.Microsecond, 2 * time.Millisecond} {
		for range 20 {
			t0 := time.Now()
			sleepFine(d)
			if got := time.Since(t0); got < d {
				t.Fatalf("sleepFine(%v) returned after %v", d, got)
			}
		}
	}
}

// BenchmarkPacerWake is the dispatcher's wake-up alone: deadlines 1 ms
// apart, slept to with a time.Timer (what the open loop did) or as the
// open loop does now (a timer to coarseMargin before, sleepFine for the
// rest; here every gap is under the margin, so sleepFine alone), and how
// late each wake-up is (p50-us, p99-us). On the 2-core dev machine at load
// average 4-5 (issue 43): timer p50 ~550-650 µs, nanosleep ~80-95 µs.
func BenchmarkPacerWake(b *testing.B) {
	for _, how := range []string{"timer", "pacer"} {
		b.Run(how, func(b *testing.B) {
			timer := time.NewTimer(time.Hour)
			var late []float64
			start := time.Now()
			i := 0
			for b.Loop() {
				i++
				deadline := start.Add(time.Duration(i) * time.Millisecond)
				d := time.Until(deadline)
				switch {
				case d <= 0:
				case how == "timer":
					timer.Reset(d)
					<-timer.C
				default:
					if d > coarseMargin {
						timer.Reset(d - coarseMargin)
						<-timer.C
					}
					if d = time.Until(deadline); d > 0 {
						sleepFine(d)
					}
				}
				late = append(late, float64(time.Since(deadline).Microseconds()))
			}
			slices.Sort(late)
			b.ReportMetric(late[len(late)/2], "p50-us")
			b.ReportMetric(late[len(late)*99/100], "p99-us")
		})
	}
}
