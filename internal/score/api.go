package score

// API contract used by internal/claims and the CLI; the implementation fills
// in the bodies. Signatures are fixed.

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

// Score normalises, aligns and totals the pairs. Stub until implemented.
func Score(pairs []Pair, opt Options) (Result, error) { panic("score: not implemented") }
