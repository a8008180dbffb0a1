package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary play loadcmp's child roles (server,
// clients, seal, verify) when runMain re-executes it.
func TestMain(m *testing.M) {
	if os.Getenv("LOADCMP_CHILD") == "1" && len(os.Args) > 1 {
		if f, ok := roles[os.Args[1]]; ok {
			os.Exit(f(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole program in quick mode, end to end: a null
// server process, every client process, two seals and a verify per run
// directory. It checks that every part ran and produced its row, not how
// fast (the machine is shared): ratios are for the program to print.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and writes run directories")
	}
	var out, errb bytes.Buffer
	code := runMain([]string{"-quick", "-n", "60", "-sizes", "4,8", "-tmp", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	s := out.String()
	t.Log("\n" + s)
	clients := []string{"benchseal", "vegeta"}
	if strings.Contains(s, "python-aiohttp skipped") {
		t.Log("no aiohttp: the Python client was skipped")
	} else {
		clients = append(clients, "python-aiohttp")
	}
	for _, c := range []string{"1", "16"} {
		for _, cl := range clients {
			// A row with numbers and no failed request.
			re := regexp.MustCompile(`(?m)^\| ` + c + ` \| ` + cl + ` \| [0-9]+ \| [0-9.]+x \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9]+ / [0-9]+ \| [0-9.]+ \| -?[0-9.]+ / (-|[0-9.]+) \| 0 \|$`)
			if !re.MatchString(s) {
				t.Errorf("no complete row for %s at c=%s", cl, c)
			}
		}
	}
	// Determinism is a property, not a speed: it must hold on any machine.
	// (A seal row exists only when verify.Bundle passed every check.)
	if n := len(regexp.MustCompile(`(?m)^- PASS [0-9]+ MB: two seals with one key give the same bytes$`).FindAllString(s, -1)); n != 2 {
		t.Errorf("want both run directories sealed deterministically, got %d PASS lines", n)
	}
	if n := len(regexp.MustCompile(`(?m)^\| [0-9]+ MB \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| true `).FindAllString(s, -1)); n != 2 {
		t.Errorf("want 2 complete seal rows, got %d", n)
	}
}

func TestPeakInFlight(t *testing.T) {
	for _, tc := range []struct {
		iv   [][2]float64
		want int
	}{
		{nil, 0},
		{[][2]float64{{0, 1}}, 1},
		{[][2]float64{{0, 1}, {1, 2}}, 1}, // back to back: the end closes first
		{[][2]float64{{0, 3}, {1, 2}, {1.5, 4}}, 3},
		{[][2]float64{{0, 1}, {2, 3}, {2.5, 2.7}}, 2},
	} {
		if got := peakInFlight(tc.iv); got != tc.want {
			t.Errorf("peakInFlight(%v) = %d, want %d", tc.iv, got, tc.want)
		}
	}
}

func TestOptions(t *testing.T) {
	var errb bytes.Buffer
	for _, args := range [][]string{{"-levels", "1,x"}, {"-sizes", "0"}, {"-n", "0"}, {"extra"}, {"-rates", "0"}} {
		if _, err := parseOptions(args, &errb); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	o, err := parseOptions([]string{"-quick", "-n", "7"}, &errb)
	if err != nil || o.n != 7 || len(o.levels) != 2 || o.sizesMB[1] != 32 {
		t.Errorf("-quick -n 7: %+v %v", o, err)
	}
	// -cpuprofile's folder is made before any child is asked to write in it.
	dir := filepath.Join(t.TempDir(), "profiles", "today")
	if _, err := parseOptions([]string{"-cpuprofile", dir}, &errb); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("-cpuprofile %s: not made (%v)", dir, err)
	}
}

func TestPairedRatio(t *testing.T) {
	r := &report{ratios: map[string][]float64{"vegeta16": {1.2, 0.9, 1.1}}}
	m, all, ok := r.ratio("vegeta", 16)
	if !ok || m != 1.1 || all != "1.20 0.90 1.10" {
		t.Errorf("ratio = %v %q %v, want the median 1.1 of the rounds in order", m, all, ok)
	}
	if _, _, ok := r.ratio("vegeta", 64); ok {
		t.Error("a level without rounds has a ratio")
	}
}

// TestLateness runs -lateness small: a row per client at each rate, every
// request answered, and benchseal's sends never before their planned
// time (its p50 is not negative). Speeds are for the program to print.
func TestLateness(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the null server")
	}
	var out, errb bytes.Buffer
	code := runMain([]string{"-lateness", "-rates", "200", "-n", "100", "-tmp", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	s := out.String()
	t.Log("\n" + s)
	for _, cl := range []string{`benchseal \(constant\)`, `benchseal \(Poisson\)`, `vegeta -rate \(constant\)`} {
		re := regexp.MustCompile(`(?m)^\| ` + cl + ` \| 200 \| [0-9]+ \| 100/100 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+ %|not observed) \| — \|$`)
		if !re.MatchString(s) {
			t.Errorf("no complete row for %s", cl)
		}
	}
}

// TestSteal: /proc/stat's steal share is a percentage where it can be
// read and "not observed" where it cannot, never a made-up 0.
func TestSteal(t *testing.T) {
	if got := stealSince(cpuStat{}); got != "not observed" {
		t.Errorf("steal from a failed reading = %q, want not observed", got)
	}
	a := readCPUStat()
	if _, err := os.Stat("/proc/stat"); err != nil {
		if a.ok {
			t.Error("no /proc/stat, yet a reading")
		}
		return
	}
	if !a.ok || a.total == 0 || a.steal > a.total {
		t.Fatalf("reading /proc/stat: %+v", a)
	}
	time.Sleep(50 * time.Millisecond) // a few clock ticks of every CPU, idle or not
	if got := stealSince(a); !regexp.MustCompile(`^[0-9]+\.[0-9] %$`).MatchString(got) {
		t.Errorf("steal = %q, want a percentage", got)
	}
}
