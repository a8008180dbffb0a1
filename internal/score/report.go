package score

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Check reports whether o names a known normalizer and aligner, as Score
// would, before anything is read: an *OptionError otherwise.
func (o Options) Check() error {
	if _, err := Units(o.Normalizer, ""); err != nil {
		return err
	}
	if _, ok := alignerWeights[o.Aligner]; !ok {
		return &OptionError{Option: "aligner", Value: o.Aligner, Valid: Aligners}
	}
	return nil
}

// ReadFile reads a transcript file (ReadTranscripts).
func ReadFile(path string) ([]Transcript, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return ReadTranscripts(fh, path)
}

// Report is one corpus score as `benchseal score --json` prints it; its
// JSON keys are stable.
type Report struct {
	Target      string      `json:"target,omitempty"`
	Concurrency int         `json:"concurrency,omitempty"`
	Repeat      int         `json:"repeat,omitempty"`
	Normalizer  string      `json:"normalizer"`
	Aligner     string      `json:"aligner"`
	Unit        string      `json:"unit"`
	Failures    string      `json:"failures"`
	Utterances  int         `json:"utterances"`
	RefWords    int         `json:"ref_words"`
	Correct     int         `json:"correct"`
	Subs        int         `json:"substitutions"`
	Dels        int         `json:"deletions"`
	Ins         int         `json:"insertions"`
	Excluded    int         `json:"excluded"`
	WER         float64     `json:"wer"`
	Levels      []Report    `json:"levels,omitempty"`
	PerUtt      []Utterance `json:"per_utterance,omitempty"`
}

// NewReport is r scored under o; perUtt keeps every utterance's counts.
func NewReport(r Result, o Options, perUtt bool) Report {
	rep := Report{
		Normalizer: o.Normalizer, Aligner: o.Aligner, Unit: r.Unit, Failures: o.Failures(),
		Utterances: len(r.Utterances), RefWords: r.RefUnits(), Correct: r.Correct,
		Subs: r.Substitutions, Dels: r.Deletions, Ins: r.Insertions, Excluded: r.Excluded, WER: r.Rate,
	}
	if perUtt {
		rep.PerUtt = r.Utterances
	}
	return rep
}

// WriteTable writes reps as a table, one row per report ("-" for no
// target), in words and WER or, when the first report counts characters,
// chars and CER; with perUtt, then one tab-separated line per utterance.
func WriteTable(w io.Writer, reps []Report, perUtt bool) error {
	bw := bufio.NewWriter(w)
	unit := "words"
	rate := "WER"
	if len(reps) > 0 && reps[0].Unit == "char" {
		unit, rate = "chars", "CER"
	}
	fmt.Fprintf(bw, "%-12s %6s %8s %8s %8s %8s %8s %8s %8s\n", "target", "utts", unit, "correct", "subs", "dels", "ins", "excluded", rate)
	for _, r := range reps {
		name := r.Target
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(bw, "%-12s %6d %8d %8d %8d %8d %8d %8d %7.2f%%\n", name, r.Utterances, r.RefWords, r.Correct, r.Subs, r.Dels, r.Ins, r.Excluded, 100*r.WER)
	}
	if perUtt {
		for _, r := range reps {
			for _, u := range r.PerUtt {
				fmt.Fprintf(bw, "%s\t%s\tref=%d C=%d S=%d D=%d I=%d\t%.4f\n", r.Target, u.ID, u.RefUnits(), u.Correct, u.Substitutions, u.Deletions, u.Insertions, u.Counts.Rate())
			}
		}
	}
	return bw.Flush()
}

// LineError is a line NormalizeLines could not read or normalise (Line
// counts from 1).
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// NormalizeLines writes every line of r to w as the normalizer leaves it
// (Normalize), one per line, up to the first line it cannot read or
// normalise (a *LineError); what came before that line is written.
func NormalizeLines(normalizer string, r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	bw := bufio.NewWriter(w)
	line := 0
	for sc.Scan() {
		line++
		out, err := Normalize(normalizer, sc.Text())
		if err != nil {
			bw.Flush()
			return &LineError{Line: line, Err: err}
		}
		bw.WriteString(out)
		bw.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		bw.Flush()
		return &LineError{Line: line + 1, Err: err}
	}
	return bw.Flush()
}
