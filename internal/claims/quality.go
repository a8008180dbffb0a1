package claims

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/schemas"
)

// Quality is a task's quality metric, the figure claims.json keeps as
// "wer" (internal/task's Task provides it; claims cannot import task,
// which imports claims' text rule).
type Quality interface {
	// Name is the task's name, as run.json's protocol.task records it.
	Name() string
	// Quality computes the metric over one level and repeat's measured
	// records, with refs the reference text of each corpus entry that
	// has one (run.json's corpus text) and sc run.json's scoring. nil
	// means unknown (nothing scored), never 0.
	Quality(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error)
}

// WithQuality makes Compute use q's metric. Compute refuses a run whose
// protocol.task is not q.Name(). Without it, Compute computes WER only
// for an ASR run (protocol.task "asr" or absent) and refuses any other.
func WithQuality(q Quality) Option { return func(o *options) { o.quality = q } }

// quality picks the metric of run's task.
func (o *options) qualityFor(run schemas.Run) (func([]schemas.Record, map[string]string, schemas.Scoring) (*float64, error), error) {
	name := cmp.Or(run.Protocol.Task, "asr") // absent: a run made before the task was recorded
	switch {
	case o.quality != nil && o.quality.Name() == name:
		return o.quality.Quality, nil
	case o.quality != nil:
		return nil, fmt.Errorf("the run's task is %q, but its claims were asked of task %q", name, o.quality.Name())
	case name == "asr":
		return WER, nil
	}
	return nil, fmt.Errorf("the run's task %q has no quality metric here (claims.WithQuality with the task)", name)
}

// WER is the ASR task's quality metric: the measured records' scored
// transcripts against refs (WER, or CER per sc.Unit), aligned after
// sc.Aligner, failures counted as sc.Failures says; nil when no
// reference unit was scored.
func WER(measured []schemas.Record, refs map[string]string, sc schemas.Scoring) (*float64, error) {
	var pairs []score.Pair
	for _, r := range measured {
		if p, ok := ScorePair(r.Clip, r, refs); ok {
			pairs = append(pairs, p)
		}
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	// Score in a fixed order: records arrive in completion order.
	slices.SortStableFunc(pairs, func(a, b score.Pair) int { return cmp.Compare(a.ID, b.ID) })
	res, err := score.Score(pairs, score.Options{Normalizer: sc.Normalizer, Aligner: sc.Aligner,
		FailuresAsDeletions: sc.Failures == "deletions"})
	if err != nil {
		return nil, fmt.Errorf("score transcripts: %w", err)
	}
	// No reference unit scored (every request failed, failures
	// excluded): the rate is unknown, not 0.
	if res.RefUnits() == 0 {
		return nil, nil
	}
	w := res.Rate
	return &w, nil
}
