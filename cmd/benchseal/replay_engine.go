package main

import (
	"context"
	"net/http"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/session"
)

// warnEngineChange asks each target's /v1/models now and warns, before
// anything is measured, where it names another engine than the sealed
// run's server did (session.Sealed.Engines, session.CurrentEngine).
func warnEngineChange(ctx context.Context, e *env, sealed map[string]string, targets []bench.Target, apiKey string) {
	client := &http.Client{Timeout: 10 * time.Second}
	for _, t := range targets {
		was, ok := sealed[t.Name]
		if !ok {
			continue
		}
		now := session.CurrentEngine(ctx, client, t.URL, apiKey)
		if now == "" || now == was {
			continue
		}
		warnf(e.stderr, "target %s: the sealed run measured a server that described itself as %q (/v1/models owned_by); %s now says %q: the replay compares another engine, not the same one again", t.Name, was, t.URL, now)
	}
}

// replayModelError words a target that does not serve the sealed run's
// model: replay has no --model, the model is the sealed one.
func replayModelError(err error) error {
	return withHint(&usageError{err}, "the replay requests the model the sealed run measured: point --target at a server of that model, or pass --allow-unlisted-model if the server ignores the model field")
}
