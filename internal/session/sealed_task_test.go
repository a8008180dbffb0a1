package session_test

import (
	"errors"
	"testing"

	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/task"
)

// otherTask is ASR under another name: a sealed run of it must replay as
// it, not as ASR.
type otherTask struct{ task.Task }

func (otherTask) Name() string { return "other-session-test" }

// TestSealedPlanTask: the replay's plan takes the sealed run's task from
// protocol.task; absent is ASR, an unknown one is refused.
func TestSealedPlanTask(t *testing.T) {
	if _, err := task.Lookup("other-session-test"); err != nil { // -count=N
		task.Register(otherTask{task.ASR})
	}
	for _, tc := range []struct{ recorded, want string }{{"", "asr"}, {"asr", "asr"}, {"other-session-test", "other-session-test"}} {
		s := sealedRun()
		s.Run.Protocol.Task = tc.recorded
		p, _, _, err := s.Plan(session.ReplayOptions{SameVariants: true})
		if err != nil || p.Task == nil || p.Task.Name() != tc.want {
			t.Errorf("protocol.task %q: plan's task %v, %v; want %s", tc.recorded, p.Task, err, tc.want)
		}
	}
	s := sealedRun()
	s.Run.Protocol.Task = "tts-unknown"
	var ue *task.UnknownError
	if _, _, _, err := s.Plan(session.ReplayOptions{}); !errors.As(err, &ue) || ue.Name != "tts-unknown" {
		t.Errorf("an unknown task replayed: %v", err)
	}
}
