package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
)

// UnknownTargetError is a target name the sealed run does not have.
type UnknownTargetError struct {
	Name  string
	Known []string // the sealed run's targets, in run.json's order
}

func (e *UnknownTargetError) Error() string {
	return fmt.Sprintf("%s: the sealed run has no target %q (it has %s)", e.Name, e.Name, strings.Join(e.Known, ", "))
}

// CheckTargets says whether each name is a target of the sealed run: an
// *UnknownTargetError for the first that is not.
func (s *Sealed) CheckTargets(names []string) error {
	known := make([]string, len(s.Run.Targets))
	for i, t := range s.Run.Targets {
		known[i] = t.Name
	}
	for _, name := range names {
		if !slices.Contains(known, name) {
			return &UnknownTargetError{Name: name, Known: known}
		}
	}
	return nil
}

// TargetURLs parses a replay's new target URLs (NAME=URL, bench.ParseTarget),
// each naming a target of the sealed run (*UnknownTargetError) at most once
// (a *SettingError with ErrTwice): ReplayOptions.URLs.
func (s *Sealed) TargetURLs(specs []string) (map[string]string, error) {
	urls := map[string]string{}
	for _, spec := range specs {
		name, url, err := bench.ParseTarget(spec)
		if err != nil {
			return nil, err
		}
		if err := s.CheckTargets([]string{name}); err != nil {
			return nil, err
		}
		if _, dup := urls[name]; dup {
			return nil, &SettingError{Target: name, Value: url, Err: ErrTwice}
		}
		urls[name] = url
	}
	return urls, nil
}

// MarkReplay is the hook that records, before the replay measures, which
// run it replays: run.json's replay_of (s.Origin as it is now, after Plan
// recorded the overrides) and a note naming the sealed bundle or directory.
func (s *Sealed) MarkReplay() bench.Hooks {
	origin := s.Origin
	return bench.Hooks{BeforeSweep: func(_ context.Context, d *bench.Dir) error {
		d.Run.ReplayOf = &origin
		what := "run directory " + origin.Source
		if origin.BundleSHA256 != "" {
			what = "bundle sha256:" + origin.BundleSHA256
		}
		d.Run.Notes = append(d.Run.Notes, fmt.Sprintf("replay of %s (sealed run started %s)", what, origin.StartedAt.Format(time.RFC3339)))
		return nil
	}}
}
