//go:build cgo && linux && (amd64 || arm64)

package fingerprint

// How benchseal reaches NVML: it opens libnvidia-ml.so.1 with dlopen and
// looks up every function it calls with dlsym before calling it, through a
// handful of C trampolines, one per C signature. It includes no NVML header
// and links no NVML symbol, for two reasons measured on go-nvml v0.13.4-1
// (issue 18 and 12):
//
//   - go-nvml links every NVML function as an unresolved symbol bound
//     lazily at its first call, so a driver that lacks one (drivers before
//     R450 have no nvmlDeviceGetMigMode) killed the process with "symbol
//     lookup error" and exit 127 in the middle of a run. Here a missing
//     function is a nil pointer, reported as NVML_ERROR_FUNCTION_NOT_FOUND
//     and noted "not available in this driver".
//   - compiling go-nvml's cgo package printed 146 lines of deprecation
//     warnings (29 warnings) from its nvml.h on every cold build, and took
//     6-10 s of the first build's 51-56 s of CPU time (measured with an
//     empty GOCACHE on 2 cores); this file compiles silently in a moment.
//
// The struct layouts below are those of nvml.h (go-nvml v0.13.4-1,
// pkg/nvml/nvml.h: nvmlMemory_t, nvmlUtilization_t, nvmlPciInfo_t,
// nvmlProcessInfo_v1_t/_v2_t, nvmlTemperature_v1_t) on 64-bit Linux, where
// Go aligns uint64 as C does; the build tag keeps other platforms out.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef int (*nv_f0)(void);
typedef int (*nv_fp)(void *);
typedef int (*nv_fpu)(void *, unsigned int);
typedef int (*nv_fup)(unsigned int, void *);
typedef int (*nv_fdp)(void *, void *);
typedef int (*nv_fdpu)(void *, void *, unsigned int);
typedef int (*nv_fdpp)(void *, void *, void *);
typedef int (*nv_fdup)(void *, unsigned int, void *);

static int nv_call0(void *f) { return ((nv_f0)f)(); }
static int nv_callp(void *f, void *p) { return ((nv_fp)f)(p); }
static int nv_callpu(void *f, void *p, unsigned int n) { return ((nv_fpu)f)(p, n); }
static int nv_callup(void *f, unsigned int n, void *p) { return ((nv_fup)f)(n, p); }
static int nv_calldp(void *f, uintptr_t d, void *p) { return ((nv_fdp)f)((void *)d, p); }
static int nv_calldpu(void *f, uintptr_t d, void *p, unsigned int n) { return ((nv_fdpu)f)((void *)d, p, n); }
static int nv_calldpp(void *f, uintptr_t d, void *p, void *q) { return ((nv_fdpp)f)((void *)d, p, q); }
static int nv_calldup(void *f, uintptr_t d, unsigned int n, void *p) { return ((nv_fdup)f)((void *)d, n, p); }
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// nvmlReturn is an nvmlReturn_t.
type nvmlReturn int

// Return codes of nvml.h (nvmlReturn_enum) benchseal tells apart.
const (
	nvmlSuccess          nvmlReturn = 0
	nvmlNotSupported     nvmlReturn = 3
	nvmlInsufficientSize nvmlReturn = 7
	nvmlDriverNotLoaded  nvmlReturn = 9
	nvmlFunctionNotFound nvmlReturn = 13
)

// nvmlReturnNames are nvml.h's names for its return codes, without the
// NVML_ prefix, as go-nvml printed them (notes keep that wording).
var nvmlReturnNames = map[nvmlReturn]string{
	0: "SUCCESS", 1: "ERROR_UNINITIALIZED", 2: "ERROR_INVALID_ARGUMENT", 3: "ERROR_NOT_SUPPORTED",
	4: "ERROR_NO_PERMISSION", 5: "ERROR_ALREADY_INITIALIZED", 6: "ERROR_NOT_FOUND", 7: "ERROR_INSUFFICIENT_SIZE",
	8: "ERROR_INSUFFICIENT_POWER", 9: "ERROR_DRIVER_NOT_LOADED", 10: "ERROR_TIMEOUT", 11: "ERROR_IRQ_ISSUE",
	12: "ERROR_LIBRARY_NOT_FOUND", 13: "ERROR_FUNCTION_NOT_FOUND", 14: "ERROR_CORRUPTED_INFOROM", 15: "ERROR_GPU_IS_LOST",
	16: "ERROR_RESET_REQUIRED", 17: "ERROR_OPERATING_SYSTEM", 18: "ERROR_LIB_RM_VERSION_MISMATCH", 19: "ERROR_IN_USE",
	20: "ERROR_MEMORY", 21: "ERROR_NO_DATA", 22: "ERROR_VGPU_ECC_NOT_SUPPORTED", 23: "ERROR_INSUFFICIENT_RESOURCES",
	24: "ERROR_FREQ_NOT_SUPPORTED", 25: "ERROR_ARGUMENT_VERSION_MISMATCH", 26: "ERROR_DEPRECATED", 27: "ERROR_NOT_READY",
	28: "ERROR_GPU_NOT_FOUND", 29: "ERROR_INVALID_STATE", 999: "ERROR_UNKNOWN",
}

func (r nvmlReturn) String() string {
	if s, ok := nvmlReturnNames[r]; ok {
		return s
	}
	return fmt.Sprintf("ERROR_%d", int(r))
}

// nvmlLib is an opened libnvidia-ml. It is never closed: NVML keeps
// threads and state that dlclose would pull from under them.
type nvmlLib struct {
	h    unsafe.Pointer
	mu   sync.Mutex
	syms map[string]unsafe.Pointer // nil value: looked up, missing
}

var (
	libsMu sync.Mutex
	libs   = map[string]*nvmlLib{}
)

// openLib opens the library at path once per process (a bare name such
// as libnvidia-ml.so.1 is searched for as ld.so does, LD_LIBRARY_PATH
// first).
func openLib(path string) (*nvmlLib, error) {
	libsMu.Lock()
	defer libsMu.Unlock()
	if l, ok := libs[path]; ok {
		return l, nil
	}
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	h := C.dlopen(cs, C.RTLD_NOW|C.RTLD_LOCAL)
	if h == nil {
		return nil, fmt.Errorf("%s", C.GoString(C.dlerror()))
	}
	l := &nvmlLib{h: h, syms: map[string]unsafe.Pointer{}}
	libs[path] = l
	return l, nil
}

// sym looks a function up (once); nil when the library lacks it.
func (l *nvmlLib) sym(name string) unsafe.Pointer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, ok := l.syms[name]; ok {
		return p
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	p := C.dlsym(l.h, cs)
	l.syms[name] = p
	return p
}

// has reports whether the library exports name.
func (l *nvmlLib) has(name string) bool { return l.sym(name) != nil }

// first is the first of names the library exports, "" when none: newer
// versioned entry points first, the older ones as fall-backs.
func (l *nvmlLib) first(names ...string) string {
	for _, n := range names {
		if l.has(n) {
			return n
		}
	}
	return ""
}

// Each call looks its function up first; a missing one (or name "") is
// nvmlFunctionNotFound, never a call.

func (l *nvmlLib) call0(name string) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_call0(f))
}

func (l *nvmlLib) callP(name string, p unsafe.Pointer) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_callp(f, p))
}

func (l *nvmlLib) callPU(name string, p unsafe.Pointer, n uint32) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_callpu(f, p, C.uint(n)))
}

func (l *nvmlLib) callUP(name string, n uint32, p unsafe.Pointer) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_callup(f, C.uint(n), p))
}

func (l *nvmlLib) callDP(name string, d nvmlDevice, p unsafe.Pointer) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_calldp(f, C.uintptr_t(d), p))
}

func (l *nvmlLib) callDPU(name string, d nvmlDevice, p unsafe.Pointer, n uint32) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_calldpu(f, C.uintptr_t(d), p, C.uint(n)))
}

func (l *nvmlLib) callDPP(name string, d nvmlDevice, p, q unsafe.Pointer) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_calldpp(f, C.uintptr_t(d), p, q))
}

func (l *nvmlLib) callDUP(name string, d nvmlDevice, n uint32, p unsafe.Pointer) nvmlReturn {
	f := l.fn(name)
	if f == nil {
		return nvmlFunctionNotFound
	}
	return nvmlReturn(C.nv_calldup(f, C.uintptr_t(d), C.uint(n), p))
}

func (l *nvmlLib) fn(name string) unsafe.Pointer {
	if name == "" {
		return nil
	}
	return l.sym(name)
}

// nvmlDevice is an nvmlDevice_t: a pointer owned by the library, kept as
// an integer so that Go never treats it as its own.
type nvmlDevice uintptr

// deviceHandle is nvmlDeviceGetHandleByIndex(_v2).
func (l *nvmlLib) deviceHandle(i int) (nvmlDevice, nvmlReturn) {
	var d C.uintptr_t
	ret := l.callUP(l.first("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"), uint32(i), unsafe.Pointer(&d))
	return nvmlDevice(d), ret
}

// nvmlString calls a function that fills a char buffer of n bytes.
func (l *nvmlLib) nvmlString(name string, n int) (string, nvmlReturn) {
	buf := make([]byte, n)
	ret := l.callPU(name, unsafe.Pointer(&buf[0]), uint32(n))
	return cString(buf), ret
}

// deviceString calls a device function that fills a char buffer.
func (l *nvmlLib) deviceString(name string, d nvmlDevice, n int) (string, nvmlReturn) {
	buf := make([]byte, n)
	ret := l.callDPU(name, d, unsafe.Pointer(&buf[0]), uint32(n))
	return cString(buf), ret
}

// Structures of nvml.h, field for field.
type (
	nvmlMemory      struct{ Total, Free, Used uint64 }
	nvmlUtilization struct{ GPU, Memory uint32 }
	nvmlPciInfo     struct {
		BusIDLegacy                             [16]byte
		Domain, Bus, Device, PCIDeviceID, SubID uint32
		BusID                                   [32]byte
	}
	nvmlProcessInfoV1 struct {
		PID  uint32
		Used uint64
	}
	nvmlProcessInfoV2 struct {
		PID                  uint32
		Used                 uint64
		GPUInstance, Compute uint32
	}
	nvmlTemperature struct {
		Version    uint32
		SensorType int32
		Value      int32
	}
)

// Sizes fixed by nvml.h; a platform laying them out otherwise does not
// compile.
var (
	_ [24]byte = [unsafe.Sizeof(nvmlMemory{})]byte{}
	_ [68]byte = [unsafe.Sizeof(nvmlPciInfo{})]byte{}
	_ [16]byte = [unsafe.Sizeof(nvmlProcessInfoV1{})]byte{}
	_ [24]byte = [unsafe.Sizeof(nvmlProcessInfoV2{})]byte{}
	_ [12]byte = [unsafe.Sizeof(nvmlTemperature{})]byte{}
)

// nvmlTemperatureV1 is NVML_STRUCT_VERSION(Temperature, 1): the struct's
// size with the version in the top byte.
const nvmlTemperatureV1 = uint32(unsafe.Sizeof(nvmlTemperature{})) | 1<<24

// temperature reads the GPU die temperature with nvmlDeviceGetTemperatureV
// (nvmlDeviceGetTemperature is deprecated as of CUDA 13.0) and falls back
// to the deprecated call on drivers that lack the V form.
func (l *nvmlLib) temperature(d nvmlDevice) (uint32, nvmlReturn) {
	if l.has("nvmlDeviceGetTemperatureV") {
		t := nvmlTemperature{Version: nvmlTemperatureV1, SensorType: 0} // NVML_TEMPERATURE_GPU
		ret := l.callDP("nvmlDeviceGetTemperatureV", d, unsafe.Pointer(&t))
		if ret != nvmlSuccess {
			return 0, ret
		}
		if t.Value < 0 { // not a die temperature a running GPU reports
			return 0, nvmlNotSupported
		}
		return uint32(t.Value), ret
	}
	var v C.uint
	ret := l.callDUP("nvmlDeviceGetTemperature", d, 0, unsafe.Pointer(&v))
	return uint32(v), ret
}

// processes lists a device's running processes of one kind ("Compute" or
// "Graphics") with the newest entry point the driver has.
func (l *nvmlLib) processes(kind string, d nvmlDevice) ([]nvmlProcessInfoV2, nvmlReturn) {
	base := "nvmlDeviceGet" + kind + "RunningProcesses"
	name := l.first(base+"_v3", base+"_v2", base)
	v1 := name == base
	n := C.uint(0)
	ret := l.callDPP(name, d, unsafe.Pointer(&n), nil)
	for try := 0; ret == nvmlInsufficientSize && try < 4; try++ {
		n += 8 // processes may start between the two calls
		if v1 {
			buf := make([]nvmlProcessInfoV1, n)
			if ret = l.callDPP(name, d, unsafe.Pointer(&n), unsafe.Pointer(&buf[0])); ret == nvmlSuccess {
				out := make([]nvmlProcessInfoV2, 0, n)
				for _, p := range buf[:n] {
					out = append(out, nvmlProcessInfoV2{PID: p.PID, Used: p.Used})
				}
				return out, ret
			}
			continue
		}
		buf := make([]nvmlProcessInfoV2, n)
		if ret = l.callDPP(name, d, unsafe.Pointer(&n), unsafe.Pointer(&buf[0])); ret == nvmlSuccess {
			return buf[:n], ret
		}
	}
	return nil, ret
}
