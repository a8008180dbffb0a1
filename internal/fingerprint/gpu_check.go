package fingerprint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// GPUUnavailableError: GPUs were asked for but NVML cannot be read.
// NotBuiltIn is true when this binary has no NVML at all (built without
// cgo); otherwise Reason is gpu.json's (no driver, no GPU, init failed).
type GPUUnavailableError struct {
	Reason     string
	NotBuiltIn bool
}

func (e *GPUUnavailableError) Error() string { return "GPUs asked for, but " + e.Reason }

// GPUIndexError: GPUs were asked for by NVML indices NVML does not have.
// Seen are the GPUs it has.
type GPUIndexError struct {
	Missing []int
	Seen    []schemas.GPUDevice
}

func (e *GPUIndexError) Error() string {
	idx := make([]string, len(e.Missing))
	for i, m := range e.Missing {
		idx[i] = strconv.Itoa(m)
	}
	return fmt.Sprintf("no GPU %s on this host (NVML sees %s)", strings.Join(idx, ", "), SeenGPUs(e.Seen))
}

// SeenGPUs lists GPUs as "2 GPUs: 0 NVIDIA H200 (GPU-1111...), 1 ...".
func SeenGPUs(gpus []schemas.GPUDevice) string {
	if len(gpus) == 0 {
		return "no GPU"
	}
	parts := make([]string, len(gpus))
	for i, g := range gpus {
		parts[i] = strconv.Itoa(g.Index)
		if g.Name != "" {
			parts[i] += " " + g.Name
		}
		if g.UUID != "" {
			parts[i] += " (" + g.UUID + ")"
		}
	}
	noun := "GPUs"
	if len(gpus) == 1 {
		noun = "GPU"
	}
	return fmt.Sprintf("%d %s: %s", len(gpus), noun, strings.Join(parts, ", "))
}

// CheckGPUs checks NVML indices against a fingerprint (GPU()) before a run
// samples them: a *GPUUnavailableError when NVML has no GPU to offer, a
// *GPUIndexError naming every index it does not have. Sampling an index
// NVML lacks would otherwise leave its figures out of every claim while
// the run lists it among the target's GPUs.
func CheckGPUs(info schemas.GPUInfo, want []int) error {
	if len(want) == 0 {
		return nil
	}
	if !info.Available {
		return &GPUUnavailableError{Reason: info.Reason, NotBuiltIn: !NVMLBuiltIn}
	}
	var missing []int
	for _, w := range want {
		if !slices.ContainsFunc(info.GPUs, func(g schemas.GPUDevice) bool { return g.Index == w }) && !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return &GPUIndexError{Missing: missing, Seen: info.GPUs}
	}
	return nil
}
