package task

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/schemas"
)

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
