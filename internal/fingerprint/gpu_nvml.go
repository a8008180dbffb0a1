//go:build cgo && linux && (amd64 || arm64)

package fingerprint

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/dl"
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/benchseal/benchseal/schemas"
)

// nvmlLibrary is the NVML library's name, found as ld.so finds libraries
// (LD_LIBRARY_PATH, then the cache): the driver installs it.
const nvmlLibrary = "libnvidia-ml.so.1"

// NVMLBuiltIn reports whether this binary can read NVML at all.
const NVMLBuiltIn = true

// GPU fingerprints the GPUs through NVML. Without the NVML library or
// without a GPU, Available is false and Reason says why; that is not an
// error.
func GPU() schemas.GPUInfo { return gpuInfo(nvmlLibrary) }

// nvmlSession is an initialised NVML. A call through go-nvml to a
// function the driver's library lacks ends the process (the package doc
// says why), so every function that go-nvml does not resolve itself is
// looked up first (available), as NVIDIA's go-nvlib does before
// nvmlDeviceGetMigMode.
type nvmlSession struct {
	lib nvml.Interface
	mu  sync.Mutex
	has map[string]bool // LookupSymbol's answers
}

// Functions benchseal calls that go-nvml does not resolve itself (the
// package doc lists them with the driver that first has each).
const (
	fnCUDAVersion   = "nvmlSystemGetCudaDriverVersion"
	fnCUDAVersionV2 = "nvmlSystemGetCudaDriverVersion_v2"
	fnDriverVersion = "nvmlSystemGetDriverVersion"
	fnNVMLVersion   = "nvmlSystemGetNVMLVersion"
	fnName          = "nvmlDeviceGetName"
	fnUUID          = "nvmlDeviceGetUUID"
	fnSerial        = "nvmlDeviceGetSerial"
	fnMemory        = "nvmlDeviceGetMemoryInfo"
	fnClock         = "nvmlDeviceGetClockInfo"
	fnMaxClock      = "nvmlDeviceGetMaxClockInfo"
	fnPowerLimit    = "nvmlDeviceGetPowerManagementLimit"
	fnPersistence   = "nvmlDeviceGetPersistenceMode"
	fnECC           = "nvmlDeviceGetEccMode"
	fnMIG           = "nvmlDeviceGetMigMode"
	fnComputeMode   = "nvmlDeviceGetComputeMode"
	fnUtilization   = "nvmlDeviceGetUtilizationRates"
	fnPower         = "nvmlDeviceGetPowerUsage"
	fnTemperatureV  = "nvmlDeviceGetTemperatureV"
	fnTemperature   = "nvmlDeviceGetTemperature"
)

// available reports whether the library exports fn, asking once.
func (s *nvmlSession) available(fn string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok, seen := s.has[fn]
	if !seen {
		ok = s.lib.Extensions().LookupSymbol(fn) == nil
		s.has[fn] = ok
	}
	return ok
}

// call makes f, a call of fn, only where the library has fn; otherwise
// it answers ERROR_FUNCTION_NOT_FOUND without calling.
func (s *nvmlSession) call(fn string, f func() nvml.Return) nvml.Return {
	if !s.available(fn) {
		return nvml.ERROR_FUNCTION_NOT_FOUND
	}
	return f()
}

// explain is the library's own text for ret (nvmlErrorString, what users
// search for) with its return code.
func (s *nvmlSession) explain(ret nvml.Return) string {
	return fmt.Sprintf("%s (NVML return code %d)", s.lib.ErrorString(ret), int32(ret))
}

func gpuInfo(path string) schemas.GPUInfo {
	info := schemas.GPUInfo{Schema: schemas.GPUSchema, GPUs: []schemas.GPUDevice{}}
	s, err := initNVML(path)
	if err != nil {
		info.Reason = err.Error()
		return info
	}
	n, ret := s.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		info.Reason = "NVML could not count the GPUs: " + s.explain(ret)
		return info
	}
	if n == 0 {
		info.Reason = "NVML found no GPU"
		return info
	}
	info.Available = true
	var v string
	if s.call(fnDriverVersion, func() (r nvml.Return) { v, r = s.lib.SystemGetDriverVersion(); return }) == nvml.SUCCESS {
		info.DriverVersion = v
	}
	if s.call(fnNVMLVersion, func() (r nvml.Return) { v, r = s.lib.SystemGetNVMLVersion(); return }) == nvml.SUCCESS {
		info.NVMLVersion = v
	}
	var cuda int
	ret = s.call(fnCUDAVersionV2, func() (r nvml.Return) { cuda, r = s.lib.SystemGetCudaDriverVersion_v2(); return })
	if ret == nvml.ERROR_FUNCTION_NOT_FOUND {
		ret = s.call(fnCUDAVersion, func() (r nvml.Return) { cuda, r = s.lib.SystemGetCudaDriverVersion(); return })
	}
	if ret == nvml.SUCCESS {
		info.CUDADriverVersion = fmt.Sprintf("%d.%d", cuda/1000, cuda%1000/10)
	}
	for i := range n {
		d, ret := s.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			info.GPUs = append(info.GPUs, schemas.GPUDevice{Index: i, Processes: []schemas.GPUProcess{}, Notes: []string{"handle: " + s.explain(ret)}})
			continue
		}
		info.GPUs = append(info.GPUs, deviceInfo(s, i, d))
	}
	return info
}

// sessions are the initialised NVMLs by library path. A session stays
// open for the rest of the process, shared by the fingerprint and the
// sampler: go-nvml's Shutdown also closes the library and sets the
// process's ErrorString back to go-nvml's own names for every session,
// so one closed while another reads would lose the library's texts.
var (
	sessionsMu sync.Mutex
	sessions   = map[string]*nvmlSession{}
)

// initNVML loads the library at path and initialises NVML, once per
// process; the error is the Reason of gpu.json (a failure is not kept:
// the next call tries again).
func initNVML(path string) (*nvmlSession, error) {
	sessionsMu.Lock()
	defer sessionsMu.Unlock()
	if s, ok := sessions[path]; ok {
		return s, nil
	}
	s := &nvmlSession{lib: nvml.New(nvml.WithLibraryPath(path)), has: map[string]bool{}}
	switch ret := s.lib.Init(); ret {
	case nvml.SUCCESS:
		sessions[path] = s
		return s, nil
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return nil, loadError(path)
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return nil, errors.New("NVML not available: the NVIDIA driver is not loaded (nvmlInit: " + s.explain(ret) + ")")
	default:
		return nil, errors.New("NVML not available: nvmlInit failed: " + s.explain(ret))
	}
}

// loadError says why the library did not load: go-nvml answers
// ERROR_LIBRARY_NOT_FOUND alike for a missing file and a broken one, so
// the loader is asked once more for its own message (dlerror).
func loadError(path string) error {
	lib := dl.New(path, dl.RTLD_LAZY|dl.RTLD_LOCAL)
	err := lib.Open()
	switch {
	case err == nil:
		lib.Close()
		return errors.New("NVML not available: " + path + " could not be loaded")
	case strings.Contains(err.Error(), "No such file") || strings.Contains(err.Error(), "cannot open shared object"):
		return errors.New("NVML not available: " + path + " not found (no NVIDIA driver on this host)")
	default:
		return errors.New("NVML not available: " + err.Error())
	}
}

// field records the outcome of one NVML call: it reports whether the value
// is usable. "Not supported" leaves the field null without a note; a
// function the driver's library lacks is noted "not available in this
// driver"; any other failure is noted with the library's text for it.
func (s *nvmlSession) field(notes *[]string, name string, ret nvml.Return) bool {
	switch ret {
	case nvml.SUCCESS:
		return true
	case nvml.ERROR_NOT_SUPPORTED:
		return false
	case nvml.ERROR_FUNCTION_NOT_FOUND:
		*notes = append(*notes, name+": not available in this driver")
		return false
	default:
		*notes = append(*notes, name+": "+s.explain(ret))
		return false
	}
}

// computeModes are nvml.h's nvmlComputeMode_t values.
var computeModes = map[nvml.ComputeMode]string{
	nvml.COMPUTEMODE_DEFAULT: "default", nvml.COMPUTEMODE_EXCLUSIVE_THREAD: "exclusive_thread",
	nvml.COMPUTEMODE_PROHIBITED: "prohibited", nvml.COMPUTEMODE_EXCLUSIVE_PROCESS: "exclusive_process",
}

func deviceInfo(s *nvmlSession, i int, d nvml.Device) schemas.GPUDevice {
	g := schemas.GPUDevice{Index: i, Processes: []schemas.GPUProcess{}}
	n := &g.Notes
	str := func(name, fn string, get func() (string, nvml.Return)) (string, bool) {
		var v string
		ok := s.field(n, name, s.call(fn, func() (r nvml.Return) { v, r = get(); return }))
		return v, ok
	}
	u32 := func(name, fn string, get func() (uint32, nvml.Return)) *uint32 {
		var v uint32
		if s.field(n, name, s.call(fn, func() (r nvml.Return) { v, r = get(); return })) {
			return &v
		}
		return nil
	}
	if v, ok := str("name", fnName, d.GetName); ok {
		g.Name = v
	}
	if v, ok := str("uuid", fnUUID, d.GetUUID); ok {
		g.UUID = v
	}
	if v, ok := str("serial", fnSerial, d.GetSerial); ok {
		g.Serial = &v
	}
	// go-nvml resolves nvmlDeviceGetPciInfo to the newest of _v3, _v2 and
	// the first form that the library has.
	if pci, ret := d.GetPciInfo(); s.field(n, "pci", ret) {
		g.PCIBusID = ptr(cString(pci.BusId[:]))
	}
	var mem nvml.Memory
	if s.field(n, "memory", s.call(fnMemory, func() (r nvml.Return) { mem, r = d.GetMemoryInfo(); return })) {
		g.MemoryTotalBytes = &mem.Total
	}
	clock := func(get func(nvml.ClockType) (uint32, nvml.Return), c nvml.ClockType) func() (uint32, nvml.Return) {
		return func() (uint32, nvml.Return) { return get(c) }
	}
	g.SMClockMHz = u32("sm clock", fnClock, clock(d.GetClockInfo, nvml.CLOCK_SM))
	g.MemClockMHz = u32("memory clock", fnClock, clock(d.GetClockInfo, nvml.CLOCK_MEM))
	g.SMClockMaxMHz = u32("max sm clock", fnMaxClock, clock(d.GetMaxClockInfo, nvml.CLOCK_SM))
	g.MemClockMaxMHz = u32("max memory clock", fnMaxClock, clock(d.GetMaxClockInfo, nvml.CLOCK_MEM))
	if v := u32("power limit", fnPowerLimit, d.GetPowerManagementLimit); v != nil {
		g.PowerLimitW = ptr(float64(*v) / 1000)
	}
	var state nvml.EnableState
	if s.field(n, "persistence mode", s.call(fnPersistence, func() (r nvml.Return) { state, r = d.GetPersistenceMode(); return })) {
		g.PersistenceMode = ptr(state == nvml.FEATURE_ENABLED)
	}
	var cur nvml.EnableState
	if s.field(n, "ecc mode", s.call(fnECC, func() (r nvml.Return) { cur, _, r = d.GetEccMode(); return })) {
		g.ECCEnabled = ptr(cur == nvml.FEATURE_ENABLED)
	}
	var mig int
	if s.field(n, "mig mode", s.call(fnMIG, func() (r nvml.Return) { mig, _, r = d.GetMigMode(); return })) {
		g.MIGEnabled = ptr(mig == nvml.DEVICE_MIG_ENABLE)
	}
	var mode nvml.ComputeMode
	if s.field(n, "compute mode", s.call(fnComputeMode, func() (r nvml.Return) { mode, r = d.GetComputeMode(); return })) {
		m, ok := computeModes[mode]
		if !ok {
			m = "unknown"
		}
		g.ComputeMode = &m
	}
	// go-nvml resolves the process lists to the newest of _v3, _v2 and the
	// first form that the library has.
	for _, kind := range []struct {
		name string
		get  func() ([]nvml.ProcessInfo, nvml.Return)
	}{{"compute", d.GetComputeRunningProcesses}, {"graphics", d.GetGraphicsRunningProcesses}} {
		ps, ret := kind.get()
		if s.field(n, kind.name+" processes", ret) {
			for _, p := range ps {
				g.Processes = append(g.Processes, schemas.GPUProcess{PID: p.Pid, UsedMemoryBytes: p.UsedGpuMemory, Kind: kind.name})
			}
		}
	}
	// What the sampler reads: say here, once, what this driver lacks.
	for _, f := range sampledFuncs {
		if !s.available(f.funcs[0]) && (len(f.funcs) == 1 || !s.available(f.funcs[1])) {
			*n = append(*n, f.name+" samples: not available in this driver")
		}
	}
	return g
}

// sampledFuncs are the functions nvmlReader calls, each with its
// fall-back.
var sampledFuncs = []struct {
	name  string
	funcs []string
}{
	{"utilization", []string{fnUtilization}},
	{"memory", []string{fnMemory}},
	{"power", []string{fnPower}},
	{"sm clock", []string{fnClock}},
	{"temperature", []string{fnTemperatureV, fnTemperature}},
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
	s       *nvmlSession
	mu      sync.Mutex
	devices map[int]nvml.Device
}

func openGPUs() (gpuReader, error) { return openNVML(nvmlLibrary) }

func openNVML(path string) (gpuReader, error) {
	s, err := initNVML(path)
	if err != nil {
		return nil, err
	}
	return &nvmlReader{s: s, devices: map[int]nvml.Device{}}, nil
}

func (r *nvmlReader) read(index int) (schemas.GPUSample, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := schemas.GPUSample{GPU: index}
	d, ok := r.devices[index]
	if !ok {
		var ret nvml.Return
		if d, ret = r.s.lib.DeviceGetHandleByIndex(index); ret != nvml.SUCCESS {
			return s, fmt.Errorf("GPU %d: %s", index, r.s.explain(ret))
		}
		r.devices[index] = d
	}
	var u nvml.Utilization
	if r.s.call(fnUtilization, func() (ret nvml.Return) { u, ret = d.GetUtilizationRates(); return }) == nvml.SUCCESS {
		s.UtilPct, s.MemUtilPct = ptr(float64(u.Gpu)), ptr(float64(u.Memory))
	}
	var m nvml.Memory
	if r.s.call(fnMemory, func() (ret nvml.Return) { m, ret = d.GetMemoryInfo(); return }) == nvml.SUCCESS {
		s.MemUsedBytes = &m.Used
	}
	var p uint32
	if r.s.call(fnPower, func() (ret nvml.Return) { p, ret = d.GetPowerUsage(); return }) == nvml.SUCCESS {
		s.PowerW = ptr(float64(p) / 1000)
	}
	var c uint32
	if r.s.call(fnClock, func() (ret nvml.Return) { c, ret = d.GetClockInfo(nvml.CLOCK_SM); return }) == nvml.SUCCESS {
		s.SMClockMHz = &c
	}
	if t, ok := r.temperature(d); ok {
		s.TempC = &t
	}
	return s, nil
}

// temperature reads the GPU die temperature with nvmlDeviceGetTemperatureV
// (nvmlDeviceGetTemperature is deprecated as of CUDA 13.0) and falls back
// to the deprecated call on drivers that lack the V form.
func (r *nvmlReader) temperature(d nvml.Device) (uint32, bool) {
	if r.s.available(fnTemperatureV) {
		// V1 asks for sensor 0, NVML_TEMPERATURE_GPU; below 0 is not a die
		// temperature a running GPU reports.
		t, ret := d.GetTemperatureV().V1()
		if ret != nvml.SUCCESS || t.Temperature < 0 {
			return 0, false
		}
		return uint32(t.Temperature), true
	}
	var t uint32
	ret := r.s.call(fnTemperature, func() (ret nvml.Return) {
		t, ret = d.GetTemperature(nvml.TEMPERATURE_GPU)
		return
	})
	return t, ret == nvml.SUCCESS
}

// close leaves NVML initialised: the session is the process's (sessions).
func (r *nvmlReader) close() {}

func ptr[T any](v T) *T { return &v }
