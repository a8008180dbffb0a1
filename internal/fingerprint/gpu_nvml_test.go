//go:build cgo

package fingerprint

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/benchseal/benchseal/schemas"
)

// fillMock sets the device calls the dgx mocks leave nil. tick advances the
// readings so that samples differ: GPU i at tick k has utilisation
// 10*i+k %, uses (i+1) GiB + k MiB and draws 100*(i+1)+k W.
func fillMock(s *server.Server, tick *int) {
	for i, d := range s.Devices {
		md := d.(*server.Device)
		md.GetSerialFunc = func() (string, nvml.Return) {
			if i == 1 {
				return "", nvml.ERROR_NOT_SUPPORTED
			}
			return "SN-" + md.UUID[4:12], nvml.SUCCESS
		}
		md.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c == nvml.CLOCK_SM {
				return 1980, nvml.SUCCESS
			}
			return 2619, nvml.SUCCESS
		}
		md.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c == nvml.CLOCK_SM {
				return 1980, nvml.SUCCESS
			}
			return 3201, nvml.SUCCESS
		}
		md.GetPowerManagementLimitFunc = func() (uint32, nvml.Return) {
			if i == 2 {
				return 0, nvml.ERROR_NO_PERMISSION
			}
			return 700000, nvml.SUCCESS
		}
		md.GetPersistenceModeFunc = func() (nvml.EnableState, nvml.Return) { return nvml.FEATURE_ENABLED, nvml.SUCCESS }
		md.GetEccModeFunc = func() (nvml.EnableState, nvml.EnableState, nvml.Return) {
			if i == 1 {
				return 0, 0, nvml.ERROR_NOT_SUPPORTED
			}
			return nvml.FEATURE_ENABLED, nvml.FEATURE_ENABLED, nvml.SUCCESS
		}
		md.GetComputeModeFunc = func() (nvml.ComputeMode, nvml.Return) { return nvml.COMPUTEMODE_DEFAULT, nvml.SUCCESS }
		md.GetComputeRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) {
			if i == 0 {
				return []nvml.ProcessInfo{{Pid: 4242, UsedGpuMemory: 70 << 30}}, nvml.SUCCESS
			}
			return nil, nvml.SUCCESS
		}
		md.GetGraphicsRunningProcessesFunc = func() ([]nvml.ProcessInfo, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
		md.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{Gpu: uint32(10*i + *tick), Memory: uint32(i)}, nvml.SUCCESS
		}
		md.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
			used := uint64(i+1)<<30 + uint64(*tick)<<20
			return nvml.Memory{Total: md.MemoryInfo.Total, Used: used, Free: md.MemoryInfo.Total - used}, nvml.SUCCESS
		}
		md.GetPowerUsageFunc = func() (uint32, nvml.Return) { return uint32(100*(i+1)+*tick) * 1000, nvml.SUCCESS }
		md.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
			if i == 3 {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			return 40, nvml.SUCCESS
		}
	}
}

func TestGPUFingerprintDGXH200(t *testing.T) {
	var tick int
	s := dgxh200.New()
	fillMock(s, &tick)
	g := gpuInfo(s)
	b := mustValidate(t, "gpu", g)
	if !g.Available || g.DriverVersion != "550.54.15" || g.NVMLVersion != "12.550.54.15" || g.CUDADriverVersion != "12.4" || len(g.GPUs) != 8 {
		t.Fatalf("gpu = %s", b)
	}
	d0, d1, d2 := g.GPUs[0], g.GPUs[1], g.GPUs[2]
	if d0.Name != "NVIDIA H200 141GB HBM3e" || !strings.HasPrefix(d0.UUID, "GPU-") || d0.Serial == nil || d0.PCIBusID == nil ||
		*d0.MemoryTotalBytes != 144384<<20 || *d0.SMClockMaxMHz != 1980 || *d0.MemClockMaxMHz != 3201 || *d0.PowerLimitW != 700 ||
		!*d0.PersistenceMode || !*d0.ECCEnabled || *d0.MIGEnabled || *d0.ComputeMode != "default" ||
		len(d0.Processes) != 1 || d0.Processes[0] != (schemas.GPUProcess{PID: 4242, UsedMemoryBytes: 70 << 30, Kind: "compute"}) || len(d0.Notes) != 0 {
		t.Errorf("GPU 0 = %s", b)
	}
	// Not supported: empty, no note. Another failure: empty, noted.
	if d1.Serial != nil || d1.ECCEnabled != nil || len(d1.Notes) != 0 || d1.PowerLimitW == nil {
		t.Errorf("GPU 1 (serial, ECC not supported) = %+v", d1)
	}
	if d2.PowerLimitW != nil || len(d2.Notes) != 1 || !strings.Contains(d2.Notes[0], "power limit: ERROR_NO_PERMISSION") {
		t.Errorf("GPU 2 (power limit denied) = %+v", d2)
	}
	if bytes.Contains(b, []byte(`"serial":""`)) {
		t.Errorf("unsupported serial written as empty string")
	}
}

func TestGPUFingerprintDGXA100(t *testing.T) {
	var tick int
	s := dgxa100.New()
	fillMock(s, &tick)
	g := gpuInfo(s)
	mustValidate(t, "gpu", g)
	if !g.Available || len(g.GPUs) != 8 || !strings.Contains(g.GPUs[7].Name, "NVIDIA A100") || g.GPUs[7].Index != 7 {
		t.Errorf("gpu = %+v", g)
	}
}

func TestGPUNotAvailable(t *testing.T) {
	var tick int
	s := dgxh200.New()
	fillMock(s, &tick)
	s.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
	g := gpuInfo(s)
	mustValidate(t, "gpu", g)
	if g.Available || !strings.Contains(g.Reason, "libnvidia-ml.so.1 not found") || len(g.GPUs) != 0 {
		t.Errorf("gpu = %+v", g)
	}
	s.InitFunc = func() nvml.Return { return nvml.SUCCESS }
	s.DeviceGetCountFunc = func() (int, nvml.Return) { return 0, nvml.SUCCESS }
	if g := gpuInfo(s); g.Available || g.Reason != "NVML found no GPU" {
		t.Errorf("no GPU: %+v", g)
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

func TestGPUSamplerDGXH200(t *testing.T) {
	tick := 0
	s := dgxh200.New()
	fillMock(s, &tick)
	rd, err := openNVML(s)
	if err != nil {
		t.Fatal(err)
	}
	var gpu bytes.Buffer
	smp := StartSampler(context.Background(), SamplerConfig{Interval: 1 << 40, GPUs: []int{2, 3}, GPU: &gpu, gpus: rd})
	for tick = 1; tick <= 3; tick++ {
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
	// Ticks 0..3, GPUs 2 and 3; GPU 3 reports no temperature.
	if len(samples) != 8 || samples[1].GPU != 3 || samples[1].TempC != nil || *samples[0].TempC != 40 || *samples[7].SMClockMHz != 1980 {
		t.Fatalf("samples = %s", gpu.Bytes())
	}
	// Exactly what the mock says (fillMock): internal/claims' tests feed
	// these same values through claims.Compute and check the window's
	// utilisation, memory and power figures.
	for k, g := range samples {
		tick, i := k/2, 2+k%2
		if g.GPU != i || *g.UtilPct != float64(10*i+tick) || *g.MemUsedBytes != uint64(i+1)<<30+uint64(tick)<<20 ||
			*g.PowerW != float64(100*(i+1)+tick) || (k%2 == 1 && g.TNs != samples[k-1].TNs) {
			t.Errorf("sample %d (tick %d, GPU %d) = %+v", k, tick, i, g)
		}
	}
}

func TestGPUSamplerBadIndex(t *testing.T) {
	tick := 0
	s := dgxa100.New()
	fillMock(s, &tick)
	rd, _ := openNVML(s)
	smp := StartSampler(context.Background(), SamplerConfig{Interval: 1 << 40, GPUs: []int{0, 9}, gpus: rd})
	smp.Stop()
	if err := smp.GPUError(); err == nil || !strings.Contains(err.Error(), "GPU 9") {
		t.Errorf("GPUError = %v", err)
	}
}
