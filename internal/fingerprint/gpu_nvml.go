//go:build cgo

package fingerprint

import (
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/benchseal/benchseal/schemas"
)

// GPU fingerprints the GPUs through NVML. Without the NVML library or
// without a GPU, Available is false and Reason says why; that is not an
// error.
func GPU() schemas.GPUInfo { return gpuInfo(nvml.New()) }

func gpuInfo(lib nvml.Interface) schemas.GPUInfo {
	info := schemas.GPUInfo{Schema: schemas.GPUSchema, GPUs: []schemas.GPUDevice{}}
	if ret := lib.Init(); ret != nvml.SUCCESS {
		info.Reason = initReason(ret)
		return info
	}
	defer lib.Shutdown()
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		info.Reason = "NVML could not count the GPUs: " + ret.Error()
		return info
	}
	if n == 0 {
		info.Reason = "NVML found no GPU"
		return info
	}
	info.Available = true
	if v, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		info.DriverVersion = v
	}
	if v, ret := lib.SystemGetNVMLVersion(); ret == nvml.SUCCESS {
		info.NVMLVersion = v
	}
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		info.CUDADriverVersion = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	}
	for i := range n {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			info.GPUs = append(info.GPUs, schemas.GPUDevice{Index: i, Notes: []string{"handle: " + ret.Error()}})
			continue
		}
		info.GPUs = append(info.GPUs, deviceInfo(i, d))
	}
	return info
}

func initReason(ret nvml.Return) string {
	if ret == nvml.ERROR_LIBRARY_NOT_FOUND {
		return "NVML not available: libnvidia-ml.so.1 not found (no NVIDIA driver on this host)"
	}
	if ret == nvml.ERROR_DRIVER_NOT_LOADED {
		return "NVML not available: the NVIDIA driver is not loaded"
	}
	return "NVML not available: init failed: " + ret.Error()
}

// field records the outcome of one NVML call: it reports whether the value
// is usable; a failure other than "not supported" is noted by name.
func field(notes *[]string, name string, ret nvml.Return) bool {
	switch ret {
	case nvml.SUCCESS:
		return true
	case nvml.ERROR_NOT_SUPPORTED:
		return false
	default:
		*notes = append(*notes, name+": "+ret.Error())
		return false
	}
}

var computeModes = map[nvml.ComputeMode]string{
	nvml.COMPUTEMODE_DEFAULT:           "default",
	nvml.COMPUTEMODE_EXCLUSIVE_THREAD:  "exclusive_thread",
	nvml.COMPUTEMODE_PROHIBITED:        "prohibited",
	nvml.COMPUTEMODE_EXCLUSIVE_PROCESS: "exclusive_process",
}

func deviceInfo(i int, d nvml.Device) schemas.GPUDevice {
	g := schemas.GPUDevice{Index: i, Processes: []schemas.GPUProcess{}}
	n := &g.Notes
	if v, ret := d.GetName(); field(n, "name", ret) {
		g.Name = v
	}
	if v, ret := d.GetUUID(); field(n, "uuid", ret) {
		g.UUID = v
	}
	if v, ret := d.GetSerial(); field(n, "serial", ret) {
		g.Serial = &v
	}
	if v, ret := d.GetPciInfo(); field(n, "pci", ret) {
		g.PCIBusID = ptr(cString(v.BusId[:]))
	}
	if v, ret := d.GetMemoryInfo(); field(n, "memory", ret) {
		g.MemoryTotalBytes = &v.Total
	}
	if v, ret := d.GetClockInfo(nvml.CLOCK_SM); field(n, "sm clock", ret) {
		g.SMClockMHz = &v
	}
	if v, ret := d.GetClockInfo(nvml.CLOCK_MEM); field(n, "memory clock", ret) {
		g.MemClockMHz = &v
	}
	if v, ret := d.GetMaxClockInfo(nvml.CLOCK_SM); field(n, "max sm clock", ret) {
		g.SMClockMaxMHz = &v
	}
	if v, ret := d.GetMaxClockInfo(nvml.CLOCK_MEM); field(n, "max memory clock", ret) {
		g.MemClockMaxMHz = &v
	}
	if v, ret := d.GetPowerManagementLimit(); field(n, "power limit", ret) {
		g.PowerLimitW = ptr(float64(v) / 1000)
	}
	if v, ret := d.GetPersistenceMode(); field(n, "persistence mode", ret) {
		g.PersistenceMode = ptr(v == nvml.FEATURE_ENABLED)
	}
	if cur, _, ret := d.GetEccMode(); field(n, "ecc mode", ret) {
		g.ECCEnabled = ptr(cur == nvml.FEATURE_ENABLED)
	}
	if cur, _, ret := d.GetMigMode(); field(n, "mig mode", ret) {
		g.MIGEnabled = ptr(cur == nvml.DEVICE_MIG_ENABLE)
	}
	if v, ret := d.GetComputeMode(); field(n, "compute mode", ret) {
		m, ok := computeModes[v]
		if !ok {
			m = "unknown"
		}
		g.ComputeMode = &m
	}
	if ps, ret := d.GetComputeRunningProcesses(); field(n, "compute processes", ret) {
		for _, p := range ps {
			g.Processes = append(g.Processes, schemas.GPUProcess{PID: p.Pid, UsedMemoryBytes: p.UsedGpuMemory, Kind: "compute"})
		}
	}
	if ps, ret := d.GetGraphicsRunningProcesses(); field(n, "graphics processes", ret) {
		for _, p := range ps {
			g.Processes = append(g.Processes, schemas.GPUProcess{PID: p.Pid, UsedMemoryBytes: p.UsedGpuMemory, Kind: "graphics"})
		}
	}
	return g
}

func cString[T ~int8 | ~uint8](b []T) string {
	s := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

// nvmlReader samples GPUs through an initialised NVML; devices are looked
// up once.
type nvmlReader struct {
	lib     nvml.Interface
	mu      sync.Mutex
	devices map[int]nvml.Device
}

func openGPUs() (gpuReader, error) { return openNVML(nvml.New()) }

func openNVML(lib nvml.Interface) (gpuReader, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("%s", initReason(ret))
	}
	return &nvmlReader{lib: lib, devices: map[int]nvml.Device{}}, nil
}

func (r *nvmlReader) read(index int) (schemas.GPUSample, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := schemas.GPUSample{GPU: index}
	d, ok := r.devices[index]
	if !ok {
		var ret nvml.Return
		if d, ret = r.lib.DeviceGetHandleByIndex(index); ret != nvml.SUCCESS {
			return s, fmt.Errorf("GPU %d: %s", index, ret.Error())
		}
		r.devices[index] = d
	}
	if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
		s.UtilPct, s.MemUtilPct = ptr(float64(u.Gpu)), ptr(float64(u.Memory))
	}
	if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
		s.MemUsedBytes = &m.Used
	}
	if p, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
		s.PowerW = ptr(float64(p) / 1000)
	}
	if c, ret := d.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
		s.SMClockMHz = &c
	}
	if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		s.TempC = &t
	}
	return s, nil
}

func (r *nvmlReader) close() { r.lib.Shutdown() }

func ptr[T any](v T) *T { return &v }
