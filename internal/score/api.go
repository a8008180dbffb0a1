package score

import "fmt"

// Options say how to score. Names are recorded in run.json (schemas.Scoring).
type Options struct {
	Normalizer          string // "whisper-en", "basic", "zh", "none"
	Aligner             string // "unit" or "sclite"
	FailuresAsDeletions bool   // failed requests count as empty hypotheses
}

// Pair is one utterance to score.
type Pair struct {
	ID     string
	Ref    string // reference text, not normalised
	Hyp    string // hypothesis text, not normalised
	Failed bool   // the request failed: excluded unless FailuresAsDeletions
}

// Counts are alignment totals in units (words, or characters for "zh").
type Counts struct {
	Correct       int `json:"correct"`
	Substitutions int `json:"substitutions"`
	Deletions     int `json:"deletions"`
	Insertions    int `json:"insertions"`
}

// RefUnits is the reference length: correct + substitutions + deletions.
func (c Counts) RefUnits() int { return c.Correct + c.Substitutions + c.Deletions }

// Rate is (S+D+I)/(C+S+D), or 0 for an empty reference.
func (c Counts) Rate() float64 {
	n := c.RefUnits()
	if n == 0 {
		return 0
	}
	return float64(c.Substitutions+c.Deletions+c.Insertions) / float64(n)
}

// Utterance is the score of one pair.
type Utterance struct {
	ID string `json:"id"`
	Counts
	Ref string `json:"ref"` // normalised
	Hyp string `json:"hyp"` // normalised
}

// Result is a corpus score.
type Result struct {
	Unit       string      `json:"unit"` // "word" or "char"
	Utterances []Utterance `json:"utterances,omitempty"`
	Counts
	Excluded int     `json:"excluded"` // failed pairs left out
	Rate     float64 `json:"wer"`      // corpus rate: sum of errors / sum of reference units
}

// UnitOf tells whether a normalizer scores words or characters.
func UnitOf(normalizer string) string {
	if normalizer == "zh" {
		return "char"
	}
	return "word"
}

// Failure rules, the values of schemas.Scoring.Failures.
const (
	FailuresExcluded  = "excluded"
	FailuresDeletions = "deletions"
)

// Failures names o's rule for failed requests.
func (o Options) Failures() string {
	if o.FailuresAsDeletions {
		return FailuresDeletions
	}
	return FailuresExcluded
}

// Score normalises, aligns and totals the pairs, in order.
//
// A failed pair (Pair.Failed) is left out and counted in Result.Excluded,
// unless opt.FailuresAsDeletions: then its hypothesis is empty whatever it
// says, so every reference unit counts as a deletion (as sclite scores a
// missing hypothesis). Result.Rate is the corpus rate, total errors over
// total reference units, not a mean of per-utterance rates.
func Score(pairs []Pair, opt Options) (Result, error) {
	w, ok := alignerWeights[opt.Aligner]
	if !ok {
		return Result{}, &OptionError{Option: "aligner", Value: opt.Aligner, Valid: Aligners}
	}
	if _, err := Units(opt.Normalizer, ""); err != nil {
		return Result{}, err
	}
	res := Result{Unit: UnitOf(opt.Normalizer), Utterances: make([]Utterance, 0, len(pairs))}
	al := aligner{w: w}
	in := interner{}
	var refIDs, hypIDs []int32
	for _, p := range pairs {
		if p.Failed && !opt.FailuresAsDeletions {
			res.Excluded++
			continue
		}
		hyp := p.Hyp
		if p.Failed {
			hyp = ""
		}
		ru, err := Units(opt.Normalizer, p.Ref)
		if err != nil {
			return Result{}, &PairError{ID: p.ID, Field: "ref", Err: err}
		}
		hu, err := Units(opt.Normalizer, hyp)
		if err != nil {
			return Result{}, &PairError{ID: p.ID, Field: "hyp", Err: err}
		}
		refIDs = in.ids(ru, refIDs)
		hypIDs = in.ids(hu, hypIDs)
		c := al.align(refIDs, hypIDs)
		res.Utterances = append(res.Utterances, Utterance{ID: p.ID, Counts: c, Ref: join(ru), Hyp: join(hu)})
		res.Correct += c.Correct
		res.Substitutions += c.Substitutions
		res.Deletions += c.Deletions
		res.Insertions += c.Insertions
	}
	res.Rate = res.Counts.Rate()
	return res, nil
}

// String formats the totals as sclite's Sum row does.
func (c Counts) String() string {
	return fmt.Sprintf("ref=%d C=%d S=%d D=%d I=%d", c.RefUnits(), c.Correct, c.Substitutions, c.Deletions, c.Insertions)
}
