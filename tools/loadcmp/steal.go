package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// cpuStat is the host's CPU time so far, from /proc/stat's "cpu" line (in
// clock ticks, all CPUs together): the total and the part the hypervisor
// gave to other guests while this machine's CPUs wanted to run (steal). On
// a shared VM, steal is what the load average does not show: a host with
// load 1 and 30 % steal has lost a third of its cores to its neighbours,
// and the timing tails of every client with them.
type cpuStat struct {
	total, steal uint64
	ok           bool // false where /proc/stat cannot be read (not Linux)
}

func readCPUStat() cpuStat {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuStat{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuStat{}
	}
	var s cpuStat
	// user nice system idle iowait irq softirq steal [guest guest_nice]:
	// guest time is already counted in user, so the total stops at steal.
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return cpuStat{}
		}
		s.total += n
		if i == 7 {
			s.steal = n
		}
	}
	s.ok = true
	return s
}

// stealSince is the share of CPU time stolen between a and now, as "12.3 %",
// or "not observed" when either reading failed or no time passed.
func stealSince(a cpuStat) string {
	b := readCPUStat()
	if !a.ok || !b.ok || b.total <= a.total {
		return "not observed"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(b.steal-a.steal)/float64(b.total-a.total))
}
