package fingerprint

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func mustValidate(t *testing.T, name string, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.Validate(name, b); err != nil {
		t.Errorf("%s: %v\n%s", name, err, b)
	}
	return b
}

func TestClient(t *testing.T) {
	c := Client([]string{"benchseal", "run", "--api-key", secret, "--launch", "a=HF_TOKEN=" + secret + " vllm serve"})
	b := mustValidate(t, "client", c)
	if bytes.Contains(b, []byte(secret)) {
		t.Errorf("client.json holds the secret: %s", b)
	}
	if len(c.Tool.BinarySHA256) != 64 || c.Tool.GoVersion != runtime.Version() || len(c.Command) != 6 {
		t.Errorf("client = %+v", c)
	}
}

func TestHostThisMachine(t *testing.T) {
	h := Host(false)
	mustValidate(t, "host", h)
	name, _ := os.Hostname()
	if h.Hostname != name || h.HostnameRedacted {
		t.Errorf("hostname = %q, want %q", h.Hostname, name)
	}
	if runtime.GOOS == "linux" && (h.MemoryBytes <= 0 || h.LoadAvg == nil || h.Kernel == "" || h.CPUs < 1 || len(h.Notes) > 0) {
		t.Errorf("host on linux = %+v", h)
	}
	r := Host(true)
	b := mustValidate(t, "host", r)
	if !r.HostnameRedacted || (name != "" && bytes.Contains(b, []byte(`"`+name+`"`))) {
		t.Errorf("--redact-host kept the hostname: %s", b)
	}
}

// fakeProc builds a /proc and /etc tree whose numbers the test knows.
func fakeProc(t *testing.T) string {
	t.Helper()
	root := t.TempDir() + "/"
	files := map[string]string{
		"etc/os-release": "NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n",
		"proc/cpuinfo": "processor\t: 0\nmodel name\t: Test CPU @ 3GHz\nphysical id\t: 0\ncore id\t: 0\n\n" +
			"processor\t: 1\nmodel name\t: Test CPU @ 3GHz\nphysical id\t: 0\ncore id\t: 0\n\n" +
			"processor\t: 2\nmodel name\t: Test CPU @ 3GHz\nphysical id\t: 0\ncore id\t: 1\n\n",
		"proc/meminfo": "MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    250 kB\n",
		"proc/loadavg": "0.50 1.25 2.00 1/100 4242\n",
		"proc/stat":    "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 2 3 4\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestHostFixture(t *testing.T) {
	defer func(old string) { procRoot = old }(procRoot)
	procRoot = fakeProc(t)
	h := Host(false)
	mustValidate(t, "host", h)
	if h.CPUModel != "Test CPU @ 3GHz" || h.CPUCores != 2 || h.MemoryBytes != 1000*1024 || h.MemAvailableBytes != 250*1024 ||
		h.OSRelease != "Debian GNU/Linux 12 (bookworm)" || h.LoadAvg == nil || *h.LoadAvg != [3]float64{0.5, 1.25, 2} {
		t.Errorf("host = %+v", h)
	}
	os.Remove(procRoot + "proc/loadavg")
	os.WriteFile(procRoot+"proc/meminfo", []byte("garbage\n"), 0o644)
	h = Host(false)
	mustValidate(t, "host", h)
	if h.LoadAvg != nil || len(h.Notes) != 2 || !strings.Contains(strings.Join(h.Notes, "\n"), "loadavg") {
		t.Errorf("missing files not noted: %+v", h.Notes)
	}
}

func TestHostSamplerFixture(t *testing.T) {
	defer func(old string) { procRoot = old }(procRoot)
	procRoot = fakeProc(t)
	var out bytes.Buffer
	s := StartSampler(context.Background(), SamplerConfig{Interval: 1 << 40, Host: &out})
	// 300 more busy jiffies out of 400: 75%.
	os.WriteFile(procRoot+"proc/stat", []byte("cpu  250 0 250 900 0 0 0 0 0 0\n"), 0o644)
	s.Sample()
	// 100 busy out of 400: 25%.
	os.WriteFile(procRoot+"proc/stat", []byte("cpu  300 0 300 1100 100 0 0 0 0 0\n"), 0o644)
	s.Sample()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal("second Stop:", err)
	}
	if err := schemas.ValidateLines("host_sample", out.Bytes()); err != nil {
		t.Fatal(err)
	}
	var got []schemas.HostSample
	for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var h schemas.HostSample
		json.Unmarshal(l, &h)
		got = append(got, h)
	}
	if len(got) != 3 || got[0].CPUPct != nil || *got[1].CPUPct != 75 || *got[2].CPUPct != 25 || got[2].MemUsedBytes != 750*1024 || got[2].Load1 != 0.5 {
		t.Fatalf("samples = %s", out.Bytes())
	}
	// The window figures of these samples (host_cpu_mean 50 over all
	// three, 25 over the last) are checked in internal/claims.
}

// syncBuffer lets a test read what the sampler's goroutine writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.b.Bytes())
}

// hasCPU says whether a host.jsonl holds a sample with a CPU busy share.
func hasCPU(t *testing.T, jsonl []byte) bool {
	t.Helper()
	for _, l := range bytes.Split(bytes.TrimSpace(jsonl), []byte("\n")) {
		var h schemas.HostSample
		if err := json.Unmarshal(l, &h); err != nil {
			t.Fatalf("host.jsonl line %q: %v", l, err)
		}
		if h.CPUPct != nil {
			return true
		}
	}
	return false
}

func TestSamplerThisMachine(t *testing.T) {
	var host syncBuffer
	var gpu bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	s := StartSampler(ctx, SamplerConfig{Interval: 5e6, Host: &host, GPU: &gpu})
	// Work until the kernel's CPU counters (10 ms jiffies) have moved
	// between two samples.
	x := 0
	for range 500 {
		for i := range 1_000_000 {
			x += i
		}
		s.Sample()
		if hasCPU(t, host.Bytes()) {
			break
		}
	}
	cancel() // a cancelled context ends the loop; Stop still returns
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := schemas.ValidateLines("host_sample", host.Bytes()); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(host.Bytes(), []byte("\n")); n < 2 || gpu.Len() != 0 {
		t.Fatalf("%d host samples, %d gpu bytes", n, gpu.Len())
	}
	if runtime.GOOS == "linux" && !hasCPU(t, host.Bytes()) {
		t.Errorf("no host sample with cpu_pct:\n%s", host.Bytes())
	}
	// benchseal's own CPU (getrusage) beside the host's: in every
	// sample, never going back, and a share after the first sample once
	// this loop has worked.
	var prev int64
	own := false
	for i, l := range bytes.Split(bytes.TrimSpace(host.Bytes()), []byte("\n")) {
		var h schemas.HostSample
		json.Unmarshal(l, &h)
		if runtime.GOOS == "linux" && (h.ProcCPUNs == nil || *h.ProcCPUNs < prev) {
			t.Fatalf("sample %d: proc_cpu_ns %v after %d", i, h.ProcCPUNs, prev)
		}
		if h.ProcCPUNs != nil {
			prev = *h.ProcCPUNs
		}
		if h.ProcCPUPct != nil && i > 0 && *h.ProcCPUPct > 0 && *h.ProcCPUPct <= 100 {
			own = true
		}
	}
	if runtime.GOOS == "linux" && !own {
		t.Errorf("no host sample with benchseal's own proc_cpu_pct:\n%s", host.Bytes())
	}
	_ = x
}

// procPct is the process's share of all the CPUs, as cpu_pct is the
// host's: 1 s of CPU over 1 s on 2 CPUs is 50 %.
func TestProcPct(t *testing.T) {
	if p := procPct(1e9, 1e9, 2); p == nil || *p != 50 {
		t.Errorf("procPct(1 s, 1 s, 2) = %v, want 50", p)
	}
	if p := procPct(5e9, 1e9, 2); p == nil || *p != 100 {
		t.Errorf("capped at 100: %v", p)
	}
	if p := procPct(1, 0, 2); p != nil {
		t.Errorf("no time passed: %v", *p)
	}
}
