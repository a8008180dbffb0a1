package main

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/fingerprint"
)

// checkGPUFlags refuses --gpu before anything is measured when NVML cannot
// sample what it names: an index NVML does not have (it would never be
// sampled, yet be listed among the target's GPUs), or no NVML at all.
func checkGPUFlags(gpus map[string][]int) error {
	var want []int
	for _, l := range gpus {
		want = append(want, l...)
	}
	if len(want) == 0 {
		return nil
	}
	return gpuFlagError(fingerprint.CheckGPUs(fingerprint.GPU(), want), gpus)
}

// gpuFlagError words a fingerprint.CheckGPUs error for the --gpu flags.
func gpuFlagError(err error, gpus map[string][]int) error {
	var ie *fingerprint.GPUIndexError
	var ue *fingerprint.GPUUnavailableError
	switch {
	case errors.As(err, &ie):
		var flags []string
		names := make([]string, 0, len(gpus))
		for name := range gpus {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if slices.ContainsFunc(gpus[name], func(i int) bool { return slices.Contains(ie.Missing, i) }) {
				flags = append(flags, "--gpu "+name+"="+joinInts(gpus[name]))
			}
		}
		return withHint(usageErrorf("%s: %v", strings.Join(flags, ", "), err),
			"--gpu takes NVML indices (as nvidia-smi numbers them, not CUDA_VISIBLE_DEVICES order)")
	case errors.As(err, &ue) && ue.NotBuiltIn:
		return withHint(usageErrorf("--gpu: %s", ue.Reason),
			"build benchseal with cgo to read the GPUs: CGO_ENABLED=1 go build ./cmd/benchseal (needs a C compiler such as gcc), or leave out --gpu")
	case errors.As(err, &ue):
		return withHint(usageErrorf("--gpu: %s", ue.Reason),
			"run where the NVIDIA driver's libnvidia-ml.so.1 can be loaded, or leave out --gpu to measure without GPU telemetry")
	}
	return err
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}
