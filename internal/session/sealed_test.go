package session_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

func sealedRun() *session.Sealed {
	return &session.Sealed{
		Run: schemas.Run{Seed: 7,
			Protocol: schemas.Protocol{Levels: []int{1, 4}, Requests: []int{8}, Repeats: 2, Perturb: true, TimeoutS: 30,
				SuccessRule: schemas.SuccessRule, TargetOrder: "alternate"},
			Targets: []schemas.Target{{Name: "a", URL: "http://a", GPUs: []int{0}, RequestFields: map[string]string{"language": "en"}},
				{Name: "b", URL: "http://b", GPUs: []int{1}}}},
		NextVariant: map[string]int64{},
	}
}

// A replay rebuilds the sealed plan; every departure is recorded, in the
// order it was asked for, and a value redacted when sealed must be given.
func TestSealedPlan(t *testing.T) {
	s := sealedRun()
	seed := uint64(9)
	p, timeout, gpus, err := s.Plan(session.ReplayOptions{Only: []string{"b"}, Seed: &seed, Timeout: time.Minute,
		URLs: map[string]string{"b": "http://b2"}, Forms: [][2]string{{"z", "1"}, {"a", "2"}}, Command: []string{"benchseal", "replay"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Targets) != 1 || p.Targets[0].URL != "http://b2" || p.Targets[0].Fields["z"] != "1" || p.Seed != 9 || timeout != time.Minute {
		t.Errorf("plan = %+v, timeout %v", p, timeout)
	}
	if !slices.Equal(gpus["b"], []int{1}) || gpus["a"] != nil {
		t.Errorf("gpus = %v, want the sealed run's of b only", gpus)
	}
	want := []string{"form field z given (value not recorded)", "form field a given (value not recorded)",
		"target b url http://b2 (sealed: http://b)", "only b", "seed 9 (sealed: 7)", "timeout 1m0s (sealed: 30s)"}
	if !slices.Equal(s.Origin.Overrides, want) {
		t.Errorf("overrides = %q,\nwant %q", s.Origin.Overrides, want)
	}

	s = sealedRun()
	s.Run.Targets[1].URL = "http://" + fingerprint.Redacted
	var re *session.RedactedError
	if _, _, _, err := s.Plan(session.ReplayOptions{}); !errors.As(err, &re) || re.Target != "b" || re.Field != "" {
		t.Errorf("redacted URL: err = %v", err)
	}
	s = sealedRun()
	s.Run.Targets[0].RequestFields["prompt"] = fingerprint.Redacted
	if _, _, _, err := s.Plan(session.ReplayOptions{}); !errors.As(err, &re) || re.Field != "prompt" {
		t.Errorf("redacted field: err = %v", err)
	}
}
