//go:build !(cgo && linux && (amd64 || arm64))

package fingerprint

import (
	"errors"
	"runtime"

	"github.com/benchseal/benchseal/schemas"
)

// errNoNVML is why this binary has no GPU data: benchseal reaches
// libnvidia-ml through cgo, on 64-bit Linux.
var errNoNVML = func() error {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		return errors.New("NVML not built in (benchseal reads NVML on linux/amd64 and linux/arm64 only)")
	}
	return errors.New("NVML not built in (CGO_ENABLED=0)")
}()

// NVMLBuiltIn reports whether this binary can read NVML at all.
const NVMLBuiltIn = false

// GPU reports that this binary cannot see GPUs.
func GPU() schemas.GPUInfo {
	return schemas.GPUInfo{Schema: schemas.GPUSchema, Reason: errNoNVML.Error(), GPUs: []schemas.GPUDevice{}}
}

func openGPUs() (gpuReader, error) { return nil, errNoNVML }
