package task

import (
	"errors"
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

func TestRegistry(t *testing.T) {
	if got, err := Lookup("asr"); err != nil || got != ASR {
		t.Fatalf("Lookup(asr) = %v, %v", got, err)
	}
	var ue *UnknownError
	for _, name := range []string{"", "no-such-task", "ASR"} {
		if got, err := Lookup(name); !errors.As(err, &ue) || got != nil {
			t.Errorf("Lookup(%q) = %v, %v; want an *UnknownError, never ASR", name, got, err)
		}
	}
	// Absent in run.json is ASR (runs made before the task was recorded);
	// a name is looked up, never defaulted.
	if got, err := ForRun(&schemas.Run{}); err != nil || got != ASR {
		t.Errorf("ForRun(no task) = %v, %v; want ASR", got, err)
	}
	if _, err := ForRun(&schemas.Run{Protocol: schemas.Protocol{Task: "no-such-task"}}); !errors.As(err, &ue) || ue.Name != "no-such-task" {
		t.Errorf("ForRun(no-such-task) error = %v; want an *UnknownError naming it", err)
	}
	// Named is the one default: "" (no --task) is DefaultName, ASR.
	if got, err := Named(""); err != nil || got != ASR || DefaultName != ASR.Name() {
		t.Errorf("Named(\"\") = %v, %v; want ASR", got, err)
	}
	if _, err := Named("no-such-task"); !errors.As(err, &ue) {
		t.Errorf("Named(no-such-task) = %v; want an *UnknownError", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering asr twice did not panic")
		}
	}()
	Register(ASR)
}
