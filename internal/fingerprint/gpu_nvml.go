//go:build cgo && linux && (amd64 || arm64)

package fingerprint

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

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

func gpuInfo(path string) schemas.GPUInfo {
	info := schemas.GPUInfo{Schema: schemas.GPUSchema, GPUs: []schemas.GPUDevice{}}
	lib, err := initNVML(path)
	if err != nil {
		info.Reason = err.Error()
		return info
	}
	defer lib.call0("nvmlShutdown")
	var n uint32
	if ret := lib.callP(lib.first("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"), unsafe.Pointer(&n)); ret != nvmlSuccess {
		info.Reason = "NVML could not count the GPUs: " + ret.String()
		return info
	}
	if n == 0 {
		info.Reason = "NVML found no GPU"
		return info
	}
	info.Available = true
	if v, ret := lib.nvmlString("nvmlSystemGetDriverVersion", 80); ret == nvmlSuccess {
		info.DriverVersion = v
	}
	if v, ret := lib.nvmlString("nvmlSystemGetNVMLVersion", 80); ret == nvmlSuccess {
		info.NVMLVersion = v
	}
	var cuda int32
	if ret := lib.callP(lib.first("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"), unsafe.Pointer(&cuda)); ret == nvmlSuccess {
		info.CUDADriverVersion = fmt.Sprintf("%d.%d", cuda/1000, cuda%1000/10)
	}
	for i := range int(n) {
		d, ret := lib.deviceHandle(i)
		if ret != nvmlSuccess {
			info.GPUs = append(info.GPUs, schemas.GPUDevice{Index: i, Processes: []schemas.GPUProcess{}, Notes: []string{"handle: " + ret.String()}})
			continue
		}
		info.GPUs = append(info.GPUs, deviceInfo(lib, i, d))
	}
	return info
}

// initNVML opens the library and calls nvmlInit; the error is the Reason
// of gpu.json.
func initNVML(path string) (*nvmlLib, error) {
	lib, err := openLib(path)
	if err != nil {
		if strings.Contains(err.Error(), "No such file") || strings.Contains(err.Error(), "cannot open shared object") {
			return nil, errors.New("NVML not available: " + path + " not found (no NVIDIA driver on this host)")
		}
		return nil, errors.New("NVML not available: " + err.Error())
	}
	init := lib.first("nvmlInit_v2", "nvmlInit")
	if init == "" {
		return nil, errors.New("NVML not available: " + path + " has no nvmlInit")
	}
	switch ret := lib.call0(init); ret {
	case nvmlSuccess:
		return lib, nil
	case nvmlDriverNotLoaded:
		return nil, errors.New("NVML not available: the NVIDIA driver is not loaded")
	default:
		return nil, errors.New("NVML not available: init failed: " + ret.String())
	}
}

// field records the outcome of one NVML call: it reports whether the value
// is usable. "Not supported" leaves the field null without a note; a
// function the driver's library lacks is noted "not available in this
// driver"; any other failure is noted by its name.
func field(notes *[]string, name string, ret nvmlReturn) bool {
	switch ret {
	case nvmlSuccess:
		return true
	case nvmlNotSupported:
		return false
	case nvmlFunctionNotFound:
		*notes = append(*notes, name+": not available in this driver")
		return false
	default:
		*notes = append(*notes, name+": "+ret.String())
		return false
	}
}

// computeModes are nvml.h's nvmlComputeMode_t values.
var computeModes = map[uint32]string{0: "default", 1: "exclusive_thread", 2: "prohibited", 3: "exclusive_process"}

func deviceInfo(lib *nvmlLib, i int, d nvmlDevice) schemas.GPUDevice {
	g := schemas.GPUDevice{Index: i, Processes: []schemas.GPUProcess{}}
	n := &g.Notes
	if v, ret := lib.deviceString("nvmlDeviceGetName", d, 96); field(n, "name", ret) {
		g.Name = v
	}
	if v, ret := lib.deviceString("nvmlDeviceGetUUID", d, 96); field(n, "uuid", ret) {
		g.UUID = v
	}
	if v, ret := lib.deviceString("nvmlDeviceGetSerial", d, 30); field(n, "serial", ret) {
		g.Serial = &v
	}
	var pci nvmlPciInfo
	if ret := lib.callDP(lib.first("nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"), d, unsafe.Pointer(&pci)); field(n, "pci", ret) {
		g.PCIBusID = ptr(cString(pci.BusID[:]))
	}
	var mem nvmlMemory
	if ret := lib.callDP("nvmlDeviceGetMemoryInfo", d, unsafe.Pointer(&mem)); field(n, "memory", ret) {
		g.MemoryTotalBytes = &mem.Total
	}
	u32 := func(name, fn string) *uint32 {
		var v uint32
		if ret := lib.callDP(fn, d, unsafe.Pointer(&v)); field(n, name, ret) {
			return &v
		}
		return nil
	}
	clock := func(name, fn string, domain uint32) *uint32 {
		var v uint32
		if ret := lib.callDUP(fn, d, domain, unsafe.Pointer(&v)); field(n, name, ret) {
			return &v
		}
		return nil
	}
	const clockSM, clockMem = 1, 2 // NVML_CLOCK_SM, NVML_CLOCK_MEM
	g.SMClockMHz = clock("sm clock", "nvmlDeviceGetClockInfo", clockSM)
	g.MemClockMHz = clock("memory clock", "nvmlDeviceGetClockInfo", clockMem)
	g.SMClockMaxMHz = clock("max sm clock", "nvmlDeviceGetMaxClockInfo", clockSM)
	g.MemClockMaxMHz = clock("max memory clock", "nvmlDeviceGetMaxClockInfo", clockMem)
	if v := u32("power limit", "nvmlDeviceGetPowerManagementLimit"); v != nil {
		g.PowerLimitW = ptr(float64(*v) / 1000)
	}
	if v := u32("persistence mode", "nvmlDeviceGetPersistenceMode"); v != nil {
		g.PersistenceMode = ptr(*v == 1) // NVML_FEATURE_ENABLED
	}
	var cur, pending uint32
	if ret := lib.callDPP("nvmlDeviceGetEccMode", d, unsafe.Pointer(&cur), unsafe.Pointer(&pending)); field(n, "ecc mode", ret) {
		g.ECCEnabled = ptr(cur == 1)
	}
	if ret := lib.callDPP("nvmlDeviceGetMigMode", d, unsafe.Pointer(&cur), unsafe.Pointer(&pending)); field(n, "mig mode", ret) {
		g.MIGEnabled = ptr(cur == 1) // NVML_DEVICE_MIG_ENABLE
	}
	if v := u32("compute mode", "nvmlDeviceGetComputeMode"); v != nil {
		m, ok := computeModes[*v]
		if !ok {
			m = "unknown"
		}
		g.ComputeMode = &m
	}
	for _, kind := range []string{"Compute", "Graphics"} {
		ps, ret := lib.processes(kind, d)
		if field(n, strings.ToLower(kind)+" processes", ret) {
			for _, p := range ps {
				g.Processes = append(g.Processes, schemas.GPUProcess{PID: p.PID, UsedMemoryBytes: p.Used, Kind: strings.ToLower(kind)})
			}
		}
	}
	// What the sampler reads: say here, once, what this driver lacks.
	for _, s := range sampledFuncs {
		if lib.first(s.funcs...) == "" {
			*n = append(*n, s.name+" samples: not available in this driver")
		}
	}
	return g
}

// sampledFuncs are the functions nvmlReader calls, each with its
// fall-backs.
var sampledFuncs = []struct {
	name  string
	funcs []string
}{
	{"utilization", []string{"nvmlDeviceGetUtilizationRates"}},
	{"memory", []string{"nvmlDeviceGetMemoryInfo"}},
	{"power", []string{"nvmlDeviceGetPowerUsage"}},
	{"sm clock", []string{"nvmlDeviceGetClockInfo"}},
	{"temperature", []string{"nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature"}},
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
	lib     *nvmlLib
	mu      sync.Mutex
	devices map[int]nvmlDevice
}

func openGPUs() (gpuReader, error) { return openNVML(nvmlLibrary) }

func openNVML(path string) (gpuReader, error) {
	lib, err := initNVML(path)
	if err != nil {
		return nil, err
	}
	return &nvmlReader{lib: lib, devices: map[int]nvmlDevice{}}, nil
}

func (r *nvmlReader) read(index int) (schemas.GPUSample, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := schemas.GPUSample{GPU: index}
	d, ok := r.devices[index]
	if !ok {
		var ret nvmlReturn
		if d, ret = r.lib.deviceHandle(index); ret != nvmlSuccess {
			return s, fmt.Errorf("GPU %d: %s", index, ret)
		}
		r.devices[index] = d
	}
	var u nvmlUtilization
	if r.lib.callDP("nvmlDeviceGetUtilizationRates", d, unsafe.Pointer(&u)) == nvmlSuccess {
		s.UtilPct, s.MemUtilPct = ptr(float64(u.GPU)), ptr(float64(u.Memory))
	}
	var m nvmlMemory
	if r.lib.callDP("nvmlDeviceGetMemoryInfo", d, unsafe.Pointer(&m)) == nvmlSuccess {
		s.MemUsedBytes = &m.Used
	}
	var p uint32
	if r.lib.callDP("nvmlDeviceGetPowerUsage", d, unsafe.Pointer(&p)) == nvmlSuccess {
		s.PowerW = ptr(float64(p) / 1000)
	}
	var c uint32
	if r.lib.callDUP("nvmlDeviceGetClockInfo", d, 1, unsafe.Pointer(&c)) == nvmlSuccess { // NVML_CLOCK_SM
		s.SMClockMHz = &c
	}
	if t, ret := r.lib.temperature(d); ret == nvmlSuccess {
		s.TempC = &t
	}
	return s, nil
}

func (r *nvmlReader) close() { r.lib.call0("nvmlShutdown") }

func ptr[T any](v T) *T { return &v }
