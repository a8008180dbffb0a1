package report

import (
	"strings"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// A target on two GPUs: its memory and power peaks are sums over them, so
// the report says so and shows each GPU's own peak beside the sum ("689
// W" is not one GPU at its 700 W limit).
func TestTelemetryPerGPUPeaks(t *testing.T) {
	in := fixture()
	in.Run.Targets[0].GPUs = []int{0, 1}
	for li := range in.Claims.Targets[0].Levels {
		m := &in.Claims.Targets[0].Levels[li].Median
		m.GPUPowerPeakW = ptr(689.0)
		m.GPUMemPeakBytes = ptr(float64(140 << 30))
		m.GPUPeaks = []schemas.GPUPeak{{GPU: 0, MemPeakBytes: ptr(float64(70 << 30)), PowerPeakW: ptr(350.0)}, {GPU: 1, MemPeakBytes: ptr(float64(70 << 30)), PowerPeakW: ptr(339.0)}}
	}
	md, page, _ := render(t, in)
	sec := section(string(md), "Telemetry")
	for _, want := range []string{
		"| GPU memory peak (sum of GPUs) | GPU power peak (sum of GPUs) |",
		"| 140.0 GiB (GPU 0: 70.0 GiB, GPU 1: 70.0 GiB) | 689 W (GPU 0: 350 W, GPU 1: 339 W) |",
		"memory and power peaks are the largest sum over its GPUs at one sampling instant (not one GPU's reading)",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("telemetry section lacks %q:\n%s", want, sec)
		}
	}
	if !strings.Contains(string(page), "689 W (GPU 0: 350 W, GPU 1: 339 W)") {
		t.Error("the HTML page lacks the per-GPU peaks")
	}
}

// Windows too short to hold 2 samples: the section stays and says so,
// rather than disappearing.
func TestTelemetryNotObserved(t *testing.T) {
	in := fixture()
	for ti := range in.Claims.Targets {
		for li := range in.Claims.Targets[ti].Levels {
			l := &in.Claims.Targets[ti].Levels[li]
			for _, m := range append([]*schemas.Metrics{&l.Median, &l.Min, &l.Max}, ptrs(l.Repeats)...) {
				m.GPUUtilMean, m.GPUUtilMax, m.GPUMemPeakBytes, m.GPUPowerPeakW, m.HostCPUMean = nil, nil, nil, nil, nil
				m.TelemetryNote = "not observed (window shorter than --sample-interval)"
			}
		}
	}
	md, _, _ := render(t, in)
	sec := section(string(md), "Telemetry")
	if !strings.Contains(sec, "| sglang-omni | 1 | not observed (window shorter than --sample-interval) |") ||
		!strings.Contains(sec, "fewer than 2 samples") || strings.Contains(sec, "(sum of GPUs)") {
		t.Errorf("telemetry section:\n%s", sec)
	}
	// One level observed, the others not: numbers where there are some.
	in.Claims.Targets[0].Levels[0].Median.TelemetryNote = ""
	in.Claims.Targets[0].Levels[0].Median.HostCPUMean = ptr(5.0)
	md, _, _ = render(t, in)
	sec = section(string(md), "Telemetry")
	if !strings.Contains(sec, "| sglang-omni | 1 | 5.00 % |") || !strings.Contains(sec, "| sglang-omni | 2 | not observed (window shorter than --sample-interval) |") {
		t.Errorf("mixed telemetry section:\n%s", sec)
	}
}
