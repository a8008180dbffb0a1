package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/benchseal/benchseal/internal/roundtrip"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/pflag"
)

// roundTripFlags are run's --asr-target and --asr-model.
type roundTripFlags struct {
	asrTarget, asrModel string
}

func addRoundTripFlags(fl *pflag.FlagSet, f *roundTripFlags) {
	fl.StringVar(&f.asrTarget, "asr-target", "", "with --task tts: after the sweep, transcribe every produced answer with this ASR server, as NAME=URL, and score the round trip's WER against the input text (docs/tts.md)")
	fl.StringVar(&f.asrModel, "asr-model", "", "with --asr-target: the model to ask it for (default: the one it lists)")
}

// roundTrip is the run's round trip, nil without --asr-target; its
// progress goes to progress (stderr). The target's API key is not sent
// to the ASR server: it is another server.
func (f *roundTripFlags) roundTrip(taskName string, progress io.Writer) (*roundtrip.RoundTrip, error) {
	if f.asrTarget == "" {
		if f.asrModel != "" {
			return nil, usageErrorf("--asr-model needs --asr-target")
		}
		return nil, nil
	}
	if tk, err := task.Named(taskName); err != nil || !isRoundTripper(tk) {
		return nil, usageErrorf("--asr-target hears produced audio: it needs --task %s", strings.Join(task.RoundTripNames(), " or "))
	}
	name, url, ok := strings.Cut(f.asrTarget, "=")
	if !ok || name == "" || url == "" {
		return nil, usageErrorf("--asr-target %q: want NAME=URL", f.asrTarget)
	}
	return roundtrip.New(roundtrip.Config{Name: name, URL: url, Model: f.asrModel, Progress: progress})
}

// replayRoundTrip is a replay's round trip: --asr-target, else the
// sealed run's ASR server (its name, URL and model in roundtrip/asr.json),
// so that the replay's round-trip WER is measured as the sealed one was
// and compared with it, not left null beside it.
func replayRoundTrip(s *session.Sealed, f *roundTripFlags, progress io.Writer) (*roundtrip.RoundTrip, error) {
	sealed := s.Run.Protocol.RoundTrip
	if f.asrTarget != "" || sealed == nil {
		return f.roundTrip(task.NameOf(&s.Run), progress)
	}
	var sum schemas.RoundTripASR
	b, ok := s.Files[schemas.RoundTripASRFile]
	if !ok || json.Unmarshal(b, &sum) != nil || sum.URL == "" {
		return nil, withHint(usageErrorf("replay: the sealed run heard its audio through %s, but its %s is missing or unreadable", sealed.ASR, schemas.RoundTripASRFile),
			"give the ASR server to hear the replay's audio with --asr-target %s=URL", sealed.ASR)
	}
	model := f.asrModel
	if model == "" {
		model = sum.Model
	}
	return roundtrip.New(roundtrip.Config{Name: sum.Name, URL: sum.URL, Model: model, Progress: progress})
}

// isRoundTripper says tk's quality is measured by a round trip.
func isRoundTripper(tk task.Task) bool {
	_, ok := tk.(task.RoundTripper)
	return ok
}
