//go:build !(cgo && linux && (amd64 || arm64))

package fingerprint

import (
	"context"
	"testing"
)

func TestGPUNotBuiltIn(t *testing.T) {
	g := GPU()
	mustValidate(t, "gpu", g)
	if g.Available || g.Reason != "NVML not built in (CGO_ENABLED=0)" {
		t.Errorf("gpu = %+v", g)
	}
	s := StartSampler(context.Background(), SamplerConfig{Interval: 1 << 40, GPUs: []int{0}})
	s.Stop()
	if s.GPUError() != errNoNVML {
		t.Errorf("GPUError = %v", s.GPUError())
	}
}
