//go:build cgo && linux && (amd64 || arm64)

package fingerprint

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/benchseal/benchseal/internal/nvmlstub"
	"github.com/benchseal/benchseal/schemas"
)

// Every stub test here loads a real shared library through go-nvml: the
// stub of internal/nvmlstub (two H200s), built by gcc for the test. A
// process keeps the first NVML library it loads (nvmlstub's doc says
// why), so each test runs again in a child process of its own, which
// loads the one variant it names.

// stubEnv names, in a child, the stub library to load.
const stubEnv = "BENCHSEAL_TEST_NVML_STUB"

// inStub returns the library's path and true in the child; in the parent
// it builds variant v, runs the calling test in a child and returns false
// (the child's failure is the test's).
func inStub(t *testing.T, v nvmlstub.Variant) (string, bool) {
	t.Helper()
	if lib := os.Getenv(stubEnv); lib != "" {
		return lib, true
	}
	lib := filepath.Join(nvmlstub.Build(t, v), "libnvidia-ml.so.1")
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), stubEnv+"="+lib)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("%s in a process with the stub (%q): %v\n%s", t.Name(), v, err, out)
	}
	return "", false
}

func TestGPUFingerprintStub(t *testing.T) {
	lib, ok := inStub(t, nvmlstub.Current)
	if !ok {
		return
	}
	g := gpuInfo(lib)
	b := mustValidate(t, "gpu", g)
	if !g.Available || g.DriverVersion != "550.54.15" || g.NVMLVersion != "12.550.54.15" || g.CUDADriverVersion != "12.4" || len(g.GPUs) != 2 {
		t.Fatalf("gpu = %s", b)
	}
	d0, d1 := g.GPUs[0], g.GPUs[1]
	if d0.Name != "NVIDIA H200" || d0.UUID != "GPU-11111111-2222-3333-4444-555555555555" || *d0.Serial != "1650124000001" ||
		*d0.PCIBusID != "00000000:18:00.0" || *d0.MemoryTotalBytes != 144384<<20 || *d0.SMClockMHz != 1980 || *d0.MemClockMHz != 2619 ||
		*d0.SMClockMaxMHz != 1980 || *d0.MemClockMaxMHz != 3201 || *d0.PowerLimitW != 700 ||
		!*d0.PersistenceMode || !*d0.ECCEnabled || d0.MIGEnabled == nil || *d0.MIGEnabled || *d0.ComputeMode != "default" ||
		len(d0.Processes) != 1 || d0.Processes[0] != (schemas.GPUProcess{PID: 4242, UsedMemoryBytes: 70 << 30, Kind: "compute"}) || len(d0.Notes) != 0 {
		t.Errorf("GPU 0 = %s", b)
	}
	// Not supported: null, no note. Refused: noted with the library's
	// own text (nvmlErrorString) and the return code.
	if d1.Index != 1 || d1.Serial != nil || d1.ECCEnabled != nil || len(d1.Processes) != 0 || *d1.PCIBusID != "00000000:2A:00.0" ||
		!slices.Equal(d1.Notes, []string{"graphics processes: Insufficient Permissions (NVML return code 4)"}) {
		t.Errorf("GPU 1 (serial, ECC not supported, graphics processes refused) = %+v", d1)
	}
	if bytes.Contains(b, []byte(`"serial":""`)) {
		t.Errorf("unsupported serial written as empty string")
	}
}

// A driver before R450 lacks nvmlDeviceGetMigMode, nvmlDeviceGetTemperatureV
// and the v2/v3 process lists. Called unguarded through go-nvml, the first
// of them killed the process ("symbol lookup error", exit 127); each is
// looked up first, and its field says so. go-nvml itself picks the v1
// process list.
func TestGPUFingerprintOldDriver(t *testing.T) {
	lib, ok := inStub(t, nvmlstub.OldDriver)
	if !ok {
		return
	}
	g := gpuInfo(lib)
	b := mustValidate(t, "gpu", g)
	if !g.Available || len(g.GPUs) != 2 {
		t.Fatalf("gpu = %s", b)
	}
	for _, d := range g.GPUs {
		want := []string{"mig mode: not available in this driver"}
		if d.Index == 1 {
			want = append(want, "graphics processes: Insufficient Permissions (NVML return code 4)")
		}
		if d.MIGEnabled != nil || !slices.Equal(d.Notes, want) {
			t.Errorf("GPU %d: mig %v, notes %q", d.Index, d.MIGEnabled, d.Notes)
		}
	}
	// The v1 process list (16-byte entries) is read right.
	if p := g.GPUs[0].Processes; len(p) != 1 || p[0] != (schemas.GPUProcess{PID: 4242, UsedMemoryBytes: 70 << 30, Kind: "compute"}) {
		t.Errorf("processes = %+v", p)
	}
	// The deprecated temperature call is the fall-back (the stub's old
	// driver answers 41 through it).
	s := sampleOnce(t, lib, 0)
	if s.TempC == nil || *s.TempC != 41 {
		t.Errorf("old driver temperature = %v", s.TempC)
	}
}

// Why every such function is looked up first: called unguarded through
// go-nvml, a function the library lacks ends the process. Should go-nvml
// ever guard its calls itself, this fails, and the package doc's reason
// is to be revisited.
func TestNVMLUnguardedCallEndsProcess(t *testing.T) {
	if lib := os.Getenv(stubEnv); lib != "" {
		l := nvml.New(nvml.WithLibraryPath(lib))
		if ret := l.Init(); ret != nvml.SUCCESS {
			t.Fatal(ret)
		}
		d, _ := l.DeviceGetHandleByIndex(0)
		_, _, ret := d.GetMigMode()
		t.Fatalf("the call returned %d", int32(ret))
	}
	lib := filepath.Join(nvmlstub.Build(t, nvmlstub.OldDriver), "libnvidia-ml.so.1")
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), stubEnv+"="+lib)
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 127 || !bytes.Contains(out, []byte("undefined symbol: nvmlDeviceGetMigMode")) {
		t.Errorf("unguarded nvmlDeviceGetMigMode on a driver without it: exit %d\n%s", code, out)
	}
}

func TestGPUNoTemperatureFunction(t *testing.T) {
	lib, ok := inStub(t, nvmlstub.NoTemperature)
	if !ok {
		return
	}
	g := gpuInfo(lib)
	mustValidate(t, "gpu", g)
	if !slices.Contains(g.GPUs[1].Notes, "temperature samples: not available in this driver") {
		t.Errorf("notes = %q", g.GPUs[1].Notes)
	}
	if s := sampleOnce(t, lib, 1); s.TempC != nil || s.PowerW == nil || *s.PowerW != 200 {
		t.Errorf("sample = %+v", s)
	}
}

func sampleOnce(t *testing.T, lib string, gpu int) schemas.GPUSample {
	t.Helper()
	rd, err := openNVML(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.close()
	s, err := rd.read(gpu)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A library whose kernel driver is not loaded: nvmlInit's answer, in the
// library's own words.
func TestGPUDriverNotLoaded(t *testing.T) {
	lib, ok := inStub(t, nvmlstub.DriverNotLoaded)
	if !ok {
		return
	}
	g := gpuInfo(lib)
	mustValidate(t, "gpu", g)
	if g.Available || len(g.GPUs) != 0 ||
		g.Reason != "NVML not available: the NVIDIA driver is not loaded (nvmlInit: Driver Not Loaded (NVML return code 9))" {
		t.Errorf("gpu = %+v", g)
	}
	if _, err := openNVML(lib); err == nil || err.Error() != g.Reason {
		t.Errorf("sampler: %v", err)
	}
}

// No library at all, or a file that is not one: nothing is loaded, so
// these run in the test's own process.
func TestGPUNotAvailable(t *testing.T) {
	g := gpuInfo(filepath.Join(t.TempDir(), "libnvidia-ml.so.1"))
	mustValidate(t, "gpu", g)
	if g.Available || !strings.Contains(g.Reason, "libnvidia-ml.so.1 not found") || len(g.GPUs) != 0 {
		t.Errorf("gpu = %+v", g)
	}
	notELF := filepath.Join(t.TempDir(), "libnvidia-ml.so.1")
	if err := os.WriteFile(notELF, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := gpuInfo(notELF); g.Available || !strings.HasPrefix(g.Reason, "NVML not available: "+notELF+": ") || strings.Contains(g.Reason, "not found") {
		t.Errorf("not a library: %+v", g)
	}
}

func TestGPURealLibrary(t *testing.T) {
	g := GPU()
	mustValidate(t, "gpu", g)
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Logf("GPU host: %+v", g)
		return
	}
	if g.Available || !strings.Contains(g.Reason, "NVML not available") {
		t.Errorf("no GPU here, but gpu = %+v", g)
	}
}

func TestGPUSamplerStub(t *testing.T) {
	lib, ok := inStub(t, nvmlstub.Current)
	if !ok {
		return
	}
	rd, err := openNVML(lib)
	if err != nil {
		t.Fatal(err)
	}
	setTick := func(k int) { t.Setenv(nvmlstub.TickEnv, strconv.Itoa(k)) }
	setTick(0)
	var gpu bytes.Buffer
	smp := StartSampler(context.Background(), SamplerConfig{Interval: 1 << 40, GPUs: []int{1, 0}, GPU: &gpu, gpus: rd})
	for k := 1; k <= 3; k++ {
		setTick(k)
		smp.Sample()
	}
	if err := smp.Stop(); err != nil || smp.GPUError() != nil {
		t.Fatal(err, smp.GPUError())
	}
	if err := schemas.ValidateLines("gpu_sample", gpu.Bytes()); err != nil {
		t.Fatal(err)
	}
	var samples []schemas.GPUSample
	for _, l := range bytes.Split(bytes.TrimSpace(gpu.Bytes()), []byte("\n")) {
		var g schemas.GPUSample
		if err := json.Unmarshal(l, &g); err != nil {
			t.Fatal(err)
		}
		samples = append(samples, g)
	}
	if len(samples) != 8 {
		t.Fatalf("samples = %s", gpu.Bytes())
	}
	// Exactly what the stub says; temperature through
	// nvmlDeviceGetTemperatureV (40), not the deprecated call (99).
	for k, g := range samples {
		tick, i := k/2, 1-k%2
		if g.GPU != i || *g.UtilPct != float64(10*i+tick) || *g.MemUtilPct != float64(i) || *g.MemUsedBytes != uint64(i+1)<<30+uint64(tick)<<20 ||
			*g.PowerW != float64(100*(i+1)+tick) || *g.SMClockMHz != 1980 || *g.TempC != 40 || (k%2 == 1 && g.TNs != samples[k-1].TNs) {
			t.Errorf("sample %d (tick %d, GPU %d) = %+v", k, tick, i, g)
		}
	}
}

func TestGPUSamplerBadIndex(t *testing.T) {
	lib, ok := inStub(t, nvmlstub.Current)
	if !ok {
		return
	}
	rd, err := openNVML(lib)
	if err != nil {
		t.Fatal(err)
	}
	smp := StartSampler(context.Background(), SamplerConfig{Interval: 1 << 40, GPUs: []int{0, 9}, gpus: rd})
	smp.Stop()
	if err := smp.GPUError(); err == nil || !strings.Contains(err.Error(), "GPU 9: Invalid Argument (NVML return code 2)") {
		t.Errorf("GPUError = %v", err)
	}
}
