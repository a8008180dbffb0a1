package fingerprint

import (
	"errors"
	"slices"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func TestCheckGPUs(t *testing.T) {
	two := schemas.GPUInfo{Available: true, GPUs: []schemas.GPUDevice{{Index: 0, Name: "NVIDIA H200", UUID: "GPU-1"}, {Index: 1, Name: "NVIDIA H200", UUID: "GPU-2"}}}
	if err := CheckGPUs(two, []int{1, 0}); err != nil {
		t.Errorf("GPUs 0, 1 of two: %v", err)
	}
	if err := CheckGPUs(schemas.GPUInfo{Reason: "NVML not available: x"}, nil); err != nil {
		t.Errorf("none asked for: %v", err)
	}
	err := CheckGPUs(two, []int{0, 7, 5, 7})
	var ie *GPUIndexError
	if !errors.As(err, &ie) || !slices.Equal(ie.Missing, []int{5, 7}) ||
		err.Error() != "no GPU 5, 7 on this host (NVML sees 2 GPUs: 0 NVIDIA H200 (GPU-1), 1 NVIDIA H200 (GPU-2))" {
		t.Errorf("GPUs 5, 7 of two: %v", err)
	}
	err = CheckGPUs(schemas.GPUInfo{Reason: "NVML not available: the NVIDIA driver is not loaded"}, []int{0})
	var ue *GPUUnavailableError
	if !errors.As(err, &ue) || ue.NotBuiltIn != !NVMLBuiltIn || err.Error() != "GPUs asked for, but NVML not available: the NVIDIA driver is not loaded" {
		t.Errorf("no NVML: %v", err)
	}
}
