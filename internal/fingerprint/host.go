package fingerprint

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// procRoot is where /proc and /etc are read from; tests point it at a
// fixture tree.
var procRoot = "/"

// Client describes the running client: Tool() and the command line args
// (os.Args), redacted. A binary that cannot be hashed is noted, not fatal.
func Client(args []string) schemas.ClientInfo {
	c := schemas.ClientInfo{Schema: schemas.ClientSchema, Platform: runtime.GOOS + "/" + runtime.GOARCH, Command: RedactArgs(args)}
	t, err := Tool()
	if err != nil {
		c.Notes = append(c.Notes, err.Error())
	}
	c.Tool = t
	return c
}

// Host describes the client machine now. What cannot be read is noted in
// Notes and left empty. With redactHost the hostname is replaced.
func Host(redactHost bool) schemas.HostInfo {
	h := schemas.HostInfo{Schema: schemas.HostSchema, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	note := func(what string, err error) { h.Notes = append(h.Notes, fmt.Sprintf("%s: %v", what, err)) }
	if redactHost {
		h.Hostname, h.HostnameRedacted = Redacted, true
	} else if name, err := os.Hostname(); err == nil {
		h.Hostname = name
	} else {
		note("hostname", err)
	}
	if u, err := uname(); err == nil {
		h.Kernel, h.KernelVersion = u[0], u[1]
	} else {
		note("uname", err)
	}
	if b, err := os.ReadFile(procRoot + "etc/os-release"); err == nil {
		h.OSRelease = osRelease(b)
	} else {
		note("os release", err)
	}
	if b, err := os.ReadFile(procRoot + "proc/cpuinfo"); err == nil {
		h.CPUModel, h.CPUCores = cpuInfo(b)
	} else {
		note("cpu", err)
	}
	if m, err := readMeminfo(); err == nil {
		h.MemoryBytes, h.MemAvailableBytes = m.total, m.available
	} else {
		note("memory", err)
	}
	if l, err := readLoadavg(); err == nil {
		h.LoadAvg = &l
	} else {
		note("load", err)
	}
	return h
}

func osRelease(b []byte) string {
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// cpuInfo returns the model name and the number of distinct physical cores
// (physical id, core id pairs); 0 cores when the file does not say.
func cpuInfo(b []byte) (model string, cores int) {
	seen := map[[2]string]bool{}
	var phys, core string
	flush := func() {
		if core != "" {
			seen[[2]string{phys, core}] = true
		}
		phys, core = "", ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" {
				flush()
			}
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Model", "cpu model":
			if model == "" {
				model = v
			}
		case "physical id":
			phys = v
		case "core id":
			core = v
		}
	}
	flush()
	return model, len(seen)
}

type meminfo struct{ total, available int64 }

func readMeminfo() (meminfo, error) {
	b, err := os.ReadFile(procRoot + "proc/meminfo")
	if err != nil {
		return meminfo{}, err
	}
	var m meminfo
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 2 && f[2] == "kB" {
			n *= 1024
		}
		switch f[0] {
		case "MemTotal:":
			m.total = n
		case "MemAvailable:":
			m.available = n
		}
	}
	if m.total == 0 {
		return m, fmt.Errorf("%sproc/meminfo: no MemTotal", procRoot)
	}
	return m, nil
}

func readLoadavg() ([3]float64, error) {
	var l [3]float64
	b, err := os.ReadFile(procRoot + "proc/loadavg")
	if err != nil {
		return l, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return l, fmt.Errorf("%sproc/loadavg: %d fields, want at least 3", procRoot, len(f))
	}
	for i := range 3 {
		if l[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return l, fmt.Errorf("%sproc/loadavg: %w", procRoot, err)
		}
	}
	return l, nil
}

// cpuTimes is the aggregate "cpu" line of /proc/stat: busy and total
// jiffies; cpus counts its per-CPU lines (cpu0, cpu1, ...): the CPUs the
// total is over.
type cpuTimes struct {
	busy, total uint64
	cpus        int
}

func readCPUTimes() (cpuTimes, error) {
	b, err := os.ReadFile(procRoot + "proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	line, rest, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("%sproc/stat: first line is not the cpu total", procRoot)
	}
	var t cpuTimes
	// user nice system idle iowait irq softirq steal; guest time is already
	// counted in user and nice.
	for i, s := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("%sproc/stat: %w", procRoot, err)
		}
		t.total += n
		if i != 3 && i != 4 { // idle, iowait
			t.busy += n
		}
	}
	for _, l := range strings.Split(rest, "\n") {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			t.cpus++
		}
	}
	return t, nil
}

// busyPct is the busy share of CPU time between two readings, 0-100; nil
// when no time passed.
func busyPct(a, b cpuTimes) *float64 {
	if b.total <= a.total || b.busy < a.busy {
		return nil
	}
	p := 100 * float64(b.busy-a.busy) / float64(b.total-a.total)
	p = min(max(p, 0), 100)
	return &p
}
