package testkit

import (
	"syscall"
	"testing"
	"time"
)

// ReportCPU reports the process's CPU time per op (cpu-ns/op) when the
// returned func runs at the end of a benchmark: on a shared machine the
// wall clock (ns/op) counts other processes' time, the CPU time does not.
func ReportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}
