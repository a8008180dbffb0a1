package report

import (
	"errors"
	"strings"
	"testing"
)

// scaled is the fixture with target tg's median throughput times k at
// every level: a repeated run of the same setup that drifted.
func scaled(tg string, k float64) Input {
	in := fixture()
	for ti := range in.Claims.Targets {
		if in.Claims.Targets[ti].Target != tg {
			continue
		}
		for li := range in.Claims.Targets[ti].Levels {
			in.Claims.Targets[ti].Levels[li].Median.ReqPerS *= k
		}
	}
	return in
}

// TestDriftWidensNoise: a repeated run whose medians drifted by more
// than the lead makes the lead within noise, the rule naming the drift
// and the bound applied; a drift below the minimum effect leaves the
// verdict and says so; runs of another protocol are refused.
func TestDriftWidensNoise(t *testing.T) {
	base := section(mdOf(t, fixture()), "Conclusion")
	if !strings.Contains(base, "sglang-omni ahead by 22 %") || strings.Contains(base, "drifted") {
		t.Fatalf("the fixture's conclusion without drift:\n%s", base)
	}

	in := fixture()
	d, err := MeasureDrift(in, []Input{scaled("sglang-omni", 1.25)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Target != "sglang-omni" || d.Runs != 1 || d.Max < 0.249 || d.Max > 0.251 {
		t.Fatalf("drift %+v, want 25 %% on sglang-omni over 1 run", d)
	}
	in.Drift = d
	con := section(mdOf(t, in), "Conclusion")
	if strings.Contains(con, "ahead by") || !strings.Contains(con, "within noise (±25 %)") ||
		!strings.Contains(con, "between this run and 1 other run of the same setup (--with) the median throughput drifted by up to 25 % (sglang-omni at C = ") ||
		!strings.Contains(con, "above the minimum effect (5 %): a lead of at most 25 % is within noise.") {
		t.Errorf("a 25 %% drift against a 22 %% lead:\n%s", con)
	}

	in = fixture()
	if in.Drift, err = MeasureDrift(in, []Input{scaled("vllm-omni", 0.98)}); err != nil {
		t.Fatal(err)
	}
	con = section(mdOf(t, in), "Conclusion")
	if !strings.Contains(con, "sglang-omni ahead by 22 %") || !strings.Contains(con, "drifted by up to 2.0 % (vllm-omni at C = ") ||
		!strings.Contains(con, "within the minimum effect: a lead of at most 5 % is within noise.") {
		t.Errorf("a 2 %% drift:\n%s", con)
	}
	zh := fixture()
	zh.Drift, zh.Lang = in.Drift, "zh"
	if md := mdOf(t, zh); !strings.Contains(md, "漂移") {
		t.Errorf("zh does not name the drift:\n%s", section(md, "结论"))
	}

	other := fixture()
	other.Run.Protocol.Repeats++
	var pe *ProtocolError
	if _, err := MeasureDrift(fixture(), []Input{other}); !errors.As(err, &pe) {
		t.Errorf("another protocol: %v, want a ProtocolError", err)
	}
}
