package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/cobra"
)

func init() { register(newScoreCmd) }

type scoreFlags struct {
	ref, hyp     string
	normalizer   string
	aligner      string
	failuresDel  bool
	asJSON       bool
	perUtterance bool
}

func newScoreCmd(e *env) *cobra.Command {
	var f scoreFlags
	cmd := &cobra.Command{
		Use:   "score (--ref REF --hyp HYP | RUNDIR)",
		Short: "word (or character) error rate of transcripts or of a run",
		Long: `score aligns hypotheses with references and prints the corpus error rate:
(substitutions + deletions + insertions) / reference units, summed over all
utterances.

With --ref and --hyp, both files are sclite trn ("text (utt-id)" per line) or
JSONL ({"id": ..., "text": ...} per line); every id must be in both.
With RUNDIR, the measured records of each target are scored against the
corpus references in RUNDIR/run.json, the way run.json's scoring says;
flags given on the command line override it.

Normalizers: whisper-en (Whisper's English rules, benchseal's spelling table),
basic (Whisper's basic normalizer), zh (characters; ASCII words kept whole),
none. 'benchseal normalize' shows what a normalizer does to a text.
Aligners: unit (Levenshtein, jiwer's totals) and sclite (NIST sclite's
weights: substitution 4, insertion and deletion 3; same totals as sclite).
Failed requests are left out and counted as excluded, unless
--failures-as-deletions scores them as empty hypotheses.`,
		Args: rangeArgs(0, 1, "at most one run directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			files := f.ref != "" || f.hyp != ""
			switch {
			case len(args) == 1 && files:
				return usageErrorf("give either RUNDIR or --ref and --hyp, not both")
			case len(args) == 0 && (f.ref == "" || f.hyp == ""):
				return usageErrorf("score needs --ref and --hyp, or a run directory")
			}
			if len(args) == 1 {
				return scoreRun(e, cmd, args[0], f)
			}
			return scoreFiles(e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.ref, "ref", "", "reference transcripts (trn or JSONL)")
	fl.StringVar(&f.hyp, "hyp", "", "hypothesis transcripts (trn or JSONL)")
	fl.StringVar(&f.normalizer, "normalizer", score.NormalizerWhisperEN, "text normalizer: "+strings.Join(score.Normalizers, ", "))
	fl.StringVar(&f.aligner, "aligner", score.AlignerUnit, "aligner: "+strings.Join(score.Aligners, ", "))
	fl.BoolVar(&f.failuresDel, "failures-as-deletions", false, "score failed requests as empty hypotheses instead of leaving them out")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.BoolVar(&f.perUtterance, "per-utterance", false, "also print every utterance's counts")
	return cmd
}

func (f scoreFlags) options() (score.Options, error) {
	o := score.Options{Normalizer: f.normalizer, Aligner: f.aligner, FailuresAsDeletions: f.failuresDel}
	if _, err := score.Units(o.Normalizer, ""); err != nil {
		return o, &usageError{err}
	}
	if o.Aligner != score.AlignerUnit && o.Aligner != score.AlignerSclite {
		return o, &usageError{&score.OptionError{Option: "aligner", Value: o.Aligner, Valid: score.Aligners}}
	}
	return o, nil
}

// scoreReport is the --json output for one corpus score.
type scoreReport struct {
	Target      string            `json:"target,omitempty"`
	Concurrency int               `json:"concurrency,omitempty"`
	Repeat      int               `json:"repeat,omitempty"`
	Normalizer  string            `json:"normalizer"`
	Aligner     string            `json:"aligner"`
	Unit        string            `json:"unit"`
	Failures    string            `json:"failures"`
	Utterances  int               `json:"utterances"`
	RefWords    int               `json:"ref_words"`
	Correct     int               `json:"correct"`
	Subs        int               `json:"substitutions"`
	Dels        int               `json:"deletions"`
	Ins         int               `json:"insertions"`
	Excluded    int               `json:"excluded"`
	WER         float64           `json:"wer"`
	Levels      []scoreReport     `json:"levels,omitempty"`
	PerUtt      []score.Utterance `json:"per_utterance,omitempty"`
}

func newScoreReport(r score.Result, o score.Options, perUtt bool) scoreReport {
	rep := scoreReport{
		Normalizer: o.Normalizer, Aligner: o.Aligner, Unit: r.Unit, Failures: o.Failures(),
		Utterances: len(r.Utterances), RefWords: r.RefUnits(), Correct: r.Correct,
		Subs: r.Substitutions, Dels: r.Deletions, Ins: r.Insertions, Excluded: r.Excluded, WER: r.Rate,
	}
	if perUtt {
		rep.PerUtt = r.Utterances
	}
	return rep
}

func readTranscriptFile(path string) ([]score.Transcript, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return score.ReadTranscripts(fh, path)
}

func scoreFiles(e *env, f scoreFlags) error {
	o, err := f.options()
	if err != nil {
		return err
	}
	ref, err := readTranscriptFile(f.ref)
	if err != nil {
		return scoreInputError("read references", err)
	}
	hyp, err := readTranscriptFile(f.hyp)
	if err != nil {
		return scoreInputError("read hypotheses", err)
	}
	pairs, err := score.PairUp(ref, hyp, f.ref, f.hyp)
	if err != nil {
		return withHint(fmt.Errorf("pair utterances: %w", err), "both files must list the same utterance ids")
	}
	res, err := score.Score(pairs, o)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	rep := newScoreReport(res, o, f.perUtterance)
	if f.asJSON {
		return writeJSON(e.stdout, rep)
	}
	return writeScoreTable(e.stdout, []scoreReport{rep}, f.perUtterance)
}

func scoreInputError(what string, err error) error {
	switch {
	case errors.Is(err, score.ErrBadUTF8):
		return withHint(fmt.Errorf("%s: %w", what, err), "transcripts must be UTF-8 (iconv -f GBK -t UTF-8 converts GBK)")
	case errors.Is(err, score.ErrEmpty):
		return withHint(fmt.Errorf("%s: %w", what, err), "a trn line is 'text (utt-id)', a JSONL line {\"id\": ..., \"text\": ...}")
	}
	return fmt.Errorf("%s: %w", what, err)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeScoreTable(w io.Writer, reps []scoreReport, perUtt bool) error {
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

// scoreRun rescores a run directory: the measured records of every target
// against the corpus references in run.json (claims.Rescore, the pairing
// rule of claims.json).
func scoreRun(e *env, cmd *cobra.Command, dir string, f scoreFlags) error {
	runPath := filepath.Join(dir, schemas.RunFile)
	if _, err := os.Stat(runPath); err != nil {
		return withHint(fmt.Errorf("read run: %w", err), "RUNDIR is a directory written by 'benchseal run'")
	}
	run, recs, err := claims.LoadDir(os.DirFS(dir))
	if err != nil {
		return fmt.Errorf("read run: %s: %w", dir, err)
	}
	fl := cmd.Flags()
	if !fl.Changed("normalizer") && run.Scoring.Normalizer != "" {
		f.normalizer = run.Scoring.Normalizer
	}
	if !fl.Changed("aligner") && run.Scoring.Aligner != "" {
		f.aligner = run.Scoring.Aligner
	}
	if !fl.Changed("failures-as-deletions") {
		f.failuresDel = run.Scoring.Failures == score.FailuresDeletions
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	if len(claims.References(run)) == 0 {
		return withHint(fmt.Errorf("score run: %s: no clip of the corpus has a reference text", runPath), "give references in the corpus (a .txt next to each WAV, or \"text\" in the manifest)")
	}
	if len(run.Targets) == 0 {
		return fmt.Errorf("score run: %s: no targets", runPath)
	}
	scores, err := claims.Rescore(run, recs, o)
	var nr *claims.NoRecordsError
	if errors.As(err, &nr) {
		return fmt.Errorf("score run: target %q: no records in %s", nr.Target, filepath.Join(dir, schemas.RecordsDir, nr.Target))
	}
	if err != nil {
		return fmt.Errorf("score run: %w", err)
	}
	var reps []scoreReport
	for _, ts := range scores {
		rep := newScoreReport(ts.All, o, f.perUtterance)
		rep.Target = ts.Target
		for _, l := range ts.Levels {
			lr := newScoreReport(l.Result, o, false)
			lr.Concurrency, lr.Repeat = l.Concurrency, l.Repeat
			rep.Levels = append(rep.Levels, lr)
		}
		reps = append(reps, rep)
	}
	if f.asJSON {
		return writeJSON(e.stdout, struct {
			Targets []scoreReport `json:"targets"`
		}{reps})
	}
	return writeScoreTable(e.stdout, reps, f.perUtterance)
}
