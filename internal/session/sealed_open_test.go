package session_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

// TestSealedPlanOpenLoop: an open-loop run replays as one, with its
// rates, burstiness, bound and SLO, so the replay sends the same schedule.
func TestSealedPlanOpenLoop(t *testing.T) {
	s := sealedRun()
	pr := &s.Run.Protocol
	e2e := 0.5
	pr.Mode, pr.RequestRates, pr.Burstiness, pr.MaxConcurrency, pr.SLO = schemas.ModeOpen, []float64{5, 10}, "inf", 4, &schemas.SLO{E2ES: &e2e}
	pr.Levels = []int{1, 2}
	pr.Requests, pr.Warmup = []int{3, 3}, []int{1, 1}
	p, _, _, err := s.Plan(session.ReplayOptions{SameVariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Open() || p.Levels != nil || !slices.Equal(p.Rates, pr.RequestRates) || !math.IsInf(p.Burstiness, 1) || p.MaxConcurrency != 4 || p.SLO == nil || *p.SLO.E2ES != 0.5 {
		t.Errorf("replay plan: open %v levels %v rates %v burstiness %v max %d slo %v", p.Open(), p.Levels, p.Rates, p.Burstiness, p.MaxConcurrency, p.SLO)
	}
}

// A run whose warm-ups ramped replays with the same ramp, and its
// warm-up counts follow from it again (the plan leaves them to the ramp).
func TestSealedPlanRamp(t *testing.T) {
	s := sealedRun()
	pr := &s.Run.Protocol
	pr.Mode, pr.RequestRates, pr.Burstiness = schemas.ModeOpen, []float64{5, 10}, "1"
	pr.Levels, pr.Requests, pr.Warmup = []int{1, 2}, []int{3, 3}, []int{6, 11}
	pr.RampUp = &schemas.RampUp{Strategy: "linear", StartRPS: 1, DurationS: 2}
	p, _, _, err := s.Plan(session.ReplayOptions{SameVariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ramp == nil || *p.Ramp != (schedule.Ramp{Strategy: "linear", Start: 1, Duration: 2 * time.Second}) || p.Warmup != nil {
		t.Errorf("replay plan: ramp %+v, warm-ups %v", p.Ramp, p.Warmup)
	}
	pr.RampUp.StartRPS = 7 // above level 1's rate
	if _, _, _, err := s.Plan(session.ReplayOptions{SameVariants: true}); err == nil {
		t.Error("a ramp that cannot be derived replayed")
	}
}
