package bench

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestSummarize(t *testing.T) {
	step := func(target string, c, req, ok int, errs map[string]int) StepResult {
		return StepResult{Step: Step{Target: target, Concurrency: c, Repeat: 1}, Requests: req, Succeeded: ok, Errors: errs}
	}
	steps := []StepResult{
		step("a", 1, 100, 100, nil),
		step("a", 2, 100, 98, map[string]int{"timeout": 2}),    // 2 % failed: noisy
		step("a", 4, 1000, 999, map[string]int{"http 500": 1}), // 0.1 %: not noisy
		step("b", 1, 10, 0, map[string]int{"connect": 10}),     // every one failed
		step("b", 2, 0, 0, nil),                                // nothing measured
	}
	for i := range steps {
		steps[i].Planned = steps[i].Requests
	}
	steps[4].Planned, steps[4].Stopped = 20, true // b stopped in its second step
	got := Summarize([]string{"b", "a", "c"}, steps, 3)
	if len(got) != 3 || got[0].Target != "b" || got[1].Target != "a" || got[2].Steps != 0 {
		t.Fatalf("targets out of order: %+v", got)
	}
	a, b := got[1], got[0]
	if a.Steps != 3 || a.Requests != 1200 || a.Succeeded != 1197 || !reflect.DeepEqual(a.Errors, map[string]int{"timeout": 2, "http 500": 1}) {
		t.Errorf("a: %+v", a)
	}
	if len(a.Noisy) != 1 || a.Noisy[0].Concurrency != 2 || len(a.AllFailed) != 0 {
		t.Errorf("a noisy %v all-failed %v", a.Noisy, a.AllFailed)
	}
	if len(b.AllFailed) != 1 || b.AllFailed[0].Label() != "b c=1 r=1" || len(b.Noisy) != 0 {
		t.Errorf("b noisy %v all-failed %v", b.Noisy, b.AllFailed)
	}
	// a ran its 3 steps whole; b was stopped in its second, short of
	// its 20 measured requests; c ran none of its 3.
	if a.Stopped || a.Interrupted || len(a.Short) != 0 || a.Planned != 3 {
		t.Errorf("a: stopped %v interrupted %v short %v planned %d", a.Stopped, a.Interrupted, a.Short, a.Planned)
	}
	if !b.Stopped || len(b.Short) != 1 || b.Short[0].Label() != "b c=2 r=1" || b.Short[0].Planned != 20 {
		t.Errorf("b: stopped %v short %v", b.Stopped, b.Short)
	}
	if c := got[2]; !c.Stopped || c.Steps != 0 {
		t.Errorf("c: %+v", c)
	}
	if got := ByCount(map[string]int{"b": 1, "a": 1, "c": 5}); !reflect.DeepEqual(got, []ClassCount{{"c", 5}, {"a", 1}, {"b", 1}}) {
		t.Errorf("ByCount = %v", got)
	}
}

func TestNotWAVs(t *testing.T) {
	x, y := &NotWAVError{File: "x.wav", Format: "MP3", Ext: "mp3"}, &NotWAVError{File: "y.wav", Format: "FLAC", Ext: "flac"}
	err := fmt.Errorf("corpus: %w", errors.Join(fmt.Errorf("clip 1: %w", x), errors.New("other"), y))
	if got := NotWAVs(err); len(got) != 2 || got[0] != x || got[1] != y {
		t.Errorf("NotWAVs = %v", got)
	}
	if NotWAVs(errors.New("plain")) != nil {
		t.Error("NotWAVs of an error without one is not empty")
	}
}
