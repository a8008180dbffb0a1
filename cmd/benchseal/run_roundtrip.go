package main

import (
	"strings"

	"github.com/benchseal/benchseal/internal/roundtrip"
	"github.com/benchseal/benchseal/internal/task"
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

// roundTrip is the run's round trip, nil without --asr-target. The
// target's API key is not sent to the ASR server: it is another server.
func (f *roundTripFlags) roundTrip(taskName string) (*roundtrip.RoundTrip, error) {
	if f.asrTarget == "" {
		if f.asrModel != "" {
			return nil, usageErrorf("--asr-model needs --asr-target")
		}
		return nil, nil
	}
	if taskName != task.TTS.Name() {
		return nil, usageErrorf("--asr-target hears produced audio: it needs --task %s", task.TTS.Name())
	}
	name, url, ok := strings.Cut(f.asrTarget, "=")
	if !ok || name == "" || url == "" {
		return nil, usageErrorf("--asr-target %q: want NAME=URL", f.asrTarget)
	}
	return roundtrip.New(roundtrip.Config{Name: name, URL: url, Model: f.asrModel})
}
