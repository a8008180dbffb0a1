//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/nvmlstub"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestGPUScript runs testdata/gpu: `--gpu` and NVML through a real
// libnvidia-ml.so.1, the stub of internal/nvmlstub (two H200s), loaded by
// each benchseal subprocess from $NVML_H200 or $NVML_OLD (a driver before
// R450) through LD_LIBRARY_PATH. $WAV is a clip, $PORT a free port.
func TestGPUScript(t *testing.T) {
	h200, old := nvmlstub.Build(t, nvmlstub.Current), nvmlstub.Build(t, nvmlstub.OldDriver)
	wav := filepath.Join(t.TempDir(), "a.wav")
	writeTestWAV(t, wav, 37)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/gpu",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("NVML_H200", h200)
			e.Setenv("NVML_OLD", old)
			e.Setenv("WAV", wav)
			e.Setenv("PORT", fmt.Sprint(freePort(t)))
			return nil
		},
		// [nvml]: this binary reads NVML (cgo); [gpuhost]: a real NVIDIA
		// driver is installed, so "no NVML" cannot be staged.
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "nvml":
				return fingerprint.NVMLBuiltIn, nil
			case "gpuhost":
				_, err := os.Stat("/dev/nvidiactl")
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// A binary without NVML (CGO_ENABLED=0) says how to build one with it; the
// scripts above run a cgo build, so this wording is checked here.
func TestGPUFlagNotBuiltIn(t *testing.T) {
	err := gpuFlagError(&fingerprint.GPUUnavailableError{Reason: "NVML not built in (CGO_ENABLED=0)", NotBuiltIn: true}, map[string][]int{"a": {0}})
	var he *hintError
	if exitCode(err) != exitUsage || err.Error() != "--gpu: NVML not built in (CGO_ENABLED=0)" || !errors.As(err, &he) ||
		!strings.Contains(he.hint, "CGO_ENABLED=1 go build ./cmd/benchseal") {
		t.Errorf("not built in: %v (exit %d)", err, exitCode(err))
	}
}
