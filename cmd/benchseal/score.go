package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
// against the corpus references in run.json.
func scoreRun(e *env, cmd *cobra.Command, dir string, f scoreFlags) error {
	runPath := filepath.Join(dir, "run.json")
	b, err := os.ReadFile(runPath)
	if err != nil {
		return withHint(fmt.Errorf("read run: %w", err), "RUNDIR is a directory written by 'benchseal run'")
	}
	var run schemas.Run
	if err := json.Unmarshal(b, &run); err != nil {
		return fmt.Errorf("read run: %s: %w", runPath, err)
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
	refs := map[string]string{}
	for _, c := range run.Corpus {
		if c.Text != "" {
			refs[c.ID] = c.Text
		}
	}
	if len(refs) == 0 {
		return withHint(fmt.Errorf("score run: %s: no clip of the corpus has a reference text", runPath), "give references in the corpus (a .txt next to each WAV, or \"text\" in the manifest)")
	}
	var reps []scoreReport
	for _, t := range run.Targets {
		rep, err := scoreTarget(dir, t.Name, refs, o, f.perUtterance)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
	}
	if len(reps) == 0 {
		return fmt.Errorf("score run: %s: no targets", runPath)
	}
	if f.asJSON {
		return writeJSON(e.stdout, struct {
			Targets []scoreReport `json:"targets"`
		}{reps})
	}
	return writeScoreTable(e.stdout, reps, f.perUtterance)
}

type levelKey struct{ concurrency, repeat int }

func scoreTarget(dir, target string, refs map[string]string, o score.Options, perUtt bool) (scoreReport, error) {
	files, err := filepath.Glob(filepath.Join(dir, "records", target, "*.jsonl"))
	if err != nil || len(files) == 0 {
		return scoreReport{}, fmt.Errorf("score run: target %q: no records in %s", target, filepath.Join(dir, "records", target))
	}
	sort.Strings(files)
	var all []score.Pair
	byLevel := map[levelKey][]score.Pair{}
	var keys []levelKey
	for _, path := range files {
		if err := readRecords(path, func(line int, r schemas.Record) error {
			if r.Phase != schemas.PhaseMeasure {
				return nil
			}
			ref, ok := refs[r.Clip]
			if !ok {
				return nil // clips without a reference are not scored
			}
			hyp := r.TextScored
			if hyp == "" && r.OK {
				hyp = r.Text
			}
			p := score.Pair{ID: fmt.Sprintf("%s:%d", filepath.Base(path), line), Ref: ref, Hyp: hyp, Failed: !r.OK}
			all = append(all, p)
			k := levelKey{r.Concurrency, r.Repeat}
			if _, seen := byLevel[k]; !seen {
				keys = append(keys, k)
			}
			byLevel[k] = append(byLevel[k], p)
			return nil
		}); err != nil {
			return scoreReport{}, err
		}
	}
	res, err := score.Score(all, o)
	if err != nil {
		return scoreReport{}, fmt.Errorf("score run: target %q: %w", target, err)
	}
	rep := newScoreReport(res, o, perUtt)
	rep.Target = target
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].concurrency != keys[j].concurrency {
			return keys[i].concurrency < keys[j].concurrency
		}
		return keys[i].repeat < keys[j].repeat
	})
	for _, k := range keys {
		lr, err := score.Score(byLevel[k], o)
		if err != nil {
			return scoreReport{}, fmt.Errorf("score run: target %q: %w", target, err)
		}
		l := newScoreReport(lr, o, false)
		l.Concurrency, l.Repeat = k.concurrency, k.repeat
		rep.Levels = append(rep.Levels, l)
	}
	return rep, nil
}

func readRecords(path string, f func(line int, r schemas.Record) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read records: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var r schemas.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("read records: %s:%d: %w", path, line, err)
		}
		if err := f(line, r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read records: %s: %w", path, err)
	}
	return nil
}
