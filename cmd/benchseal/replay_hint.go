package main

import (
	"errors"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
)

// replayRunError words a replay's run errors as run's (runError), and,
// where a target does not answer and the bundle sealed the command that
// started its server, names --launch, which starts it from the bundle.
func replayRunError(s *session.Sealed, launched bool, err error) error {
	var te *bench.TargetError
	if launched || !errors.As(err, &te) {
		return runError(err)
	}
	for _, t := range s.Run.Targets {
		if t.Name == te.Target && t.LaunchCommand != "" {
			return withHint(err, "start the server, or replay with --launch to start it with the command sealed in the bundle (%s), or fix --target %s=URL (the base URL, without /v1)", t.LaunchCommand, te.Target)
		}
	}
	return runError(err)
}
