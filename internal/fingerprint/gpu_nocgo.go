//go:build !cgo

package fingerprint

import (
	"errors"

	"github.com/benchseal/benchseal/schemas"
)

// errNoNVML is why a binary built without cgo has no GPU data: go-nvml
// loads libnvidia-ml through cgo.
var errNoNVML = errors.New("NVML not built in (CGO_ENABLED=0)")

// GPU reports that this binary cannot see GPUs.
func GPU() schemas.GPUInfo {
	return schemas.GPUInfo{Schema: schemas.GPUSchema, Reason: errNoNVML.Error(), GPUs: []schemas.GPUDevice{}}
}

func openGPUs() (gpuReader, error) { return nil, errNoNVML }
