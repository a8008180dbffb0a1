package task

import (
	"cmp"
	"fmt"
	"path"
	"slices"

	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/schemas"
)

// References are the corpus texts of run.json, by clip id; a clip without
// one is never scored.
func References(run schemas.Run) map[string]string {
	refs := map[string]string{}
	for _, c := range run.Corpus {
		if c.Text != "" {
			refs[c.ID] = c.Text
		}
	}
	return refs
}

// ScorePair is the one pairing rule of WER, used by Compute and Rescore: a
// measured record of a clip with a reference is scored, its text_scored
// against the reference, a failed request marked Failed (excluded or a
// deletion by score.Options). ok is false for a record that is not scored.
func ScorePair(id string, r schemas.Record, refs map[string]string) (p score.Pair, ok bool) {
	if r.Phase != schemas.PhaseMeasure {
		return p, false
	}
	ref, ok := refs[r.Clip]
	if !ok {
		return p, false
	}
	return score.Pair{ID: id, Ref: ref, Hyp: r.Scored, Failed: !r.OK}, true
}

// TargetScore is one target's rescored records: over the whole run, and
// per level and repeat in ascending order.
type TargetScore struct {
	Target string
	All    score.Result
	Levels []LevelScore
}

// LevelScore is the score of one level and repeat.
type LevelScore struct {
	Concurrency, Repeat int
	score.Result
}

// NoRecordsError is a target of run.json without any records.
type NoRecordsError struct{ Target string }

func (e *NoRecordsError) Error() string {
	return fmt.Sprintf("target %q: no records in %s", e.Target, path.Join(schemas.RecordsDir, e.Target))
}

// Rescore scores the measured records of every target of run again under
// o, with ScorePair's rule and run.json's references. Records are in the
// order LoadDir returns them; a pair's ID is "<records file>:<n>", n
// counting the target's records of that file from 1.
func Rescore(run schemas.Run, recs []schemas.Record, o score.Options) ([]TargetScore, error) {
	refs := References(run)
	var out []TargetScore
	for _, t := range run.Targets {
		var all []score.Pair
		byLevel := map[[2]int][]score.Pair{}
		n := map[string]int{}
		for _, r := range recs {
			if r.Target != t.Name {
				continue
			}
			file := path.Base(schemas.RecordsPath(r.Target, r.Concurrency, r.Repeat))
			n[file]++
			p, ok := ScorePair(fmt.Sprintf("%s:%d", file, n[file]), r, refs)
			if !ok {
				continue
			}
			all = append(all, p)
			k := [2]int{r.Concurrency, r.Repeat}
			byLevel[k] = append(byLevel[k], p)
		}
		if len(n) == 0 {
			return out, &NoRecordsError{Target: t.Name}
		}
		ts := TargetScore{Target: t.Name}
		var err error
		if ts.All, err = score.Score(all, o); err != nil {
			return out, fmt.Errorf("target %q: %w", t.Name, err)
		}
		keys := make([][2]int, 0, len(byLevel))
		for k := range byLevel {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		for _, k := range keys {
			lr, err := score.Score(byLevel[k], o)
			if err != nil {
				return out, fmt.Errorf("target %q: %w", t.Name, err)
			}
			ts.Levels = append(ts.Levels, LevelScore{Concurrency: k[0], Repeat: k[1], Result: lr})
		}
		out = append(out, ts)
	}
	return out, nil
}

// Report is ts as `benchseal score` prints it: the whole run's score, with
// every level's (without per-utterance counts).
func (ts TargetScore) Report(o score.Options, perUtt bool) score.Report {
	rep := score.NewReport(ts.All, o, perUtt)
	rep.Target = ts.Target
	for _, l := range ts.Levels {
		lr := score.NewReport(l.Result, o, false)
		lr.Concurrency, lr.Repeat = l.Concurrency, l.Repeat
		rep.Levels = append(rep.Levels, lr)
	}
	return rep
}
