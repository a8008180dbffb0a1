package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/score"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
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
	key          string
}

func newScoreCmd(e *env) *cobra.Command {
	var f scoreFlags
	cmd := &cobra.Command{
		Use:   "score (--ref REF --hyp HYP | RUNDIR | BUNDLE [--key KEY])",
		Short: "word (or character) error rate of transcripts or of a run",
		Long: `score aligns hypotheses with references and prints the corpus error rate:
(substitutions + deletions + insertions) / reference units, summed over all
utterances.

With --ref and --hyp, both files are sclite trn ("text (utt-id)" per line) or
JSONL ({"id": ..., "text": ...} per line); every id must be in both.
With RUNDIR (or a BUNDLE, whose signature is checked with --key, or with
the key it carries; a bundle sealed with a key it does not carry needs
--key), the measured records of each target are scored against the
corpus references in run.json, the way run.json's scoring says; flags
given on the command line override it.

Normalizers: whisper-en (Whisper's English rules, benchseal's spelling table),
basic (Whisper's basic normalizer), zh (characters; ASCII words kept whole),
none. 'benchseal normalize' shows what a normalizer does to a text.
Aligners: unit (Levenshtein, jiwer's totals) and sclite (NIST sclite's
weights: substitution 4, insertion and deletion 3; same totals as sclite).
Failed requests are left out and counted as excluded, unless
--failures-as-deletions scores them as empty hypotheses.`,
		Args: rangeArgs(0, 1, "at most one run directory or bundle"),
		RunE: func(cmd *cobra.Command, args []string) error {
			files := f.ref != "" || f.hyp != ""
			switch {
			case len(args) == 1 && files:
				return usageErrorf("give either RUNDIR or --ref and --hyp, not both")
			case len(args) == 0 && (f.ref == "" || f.hyp == ""):
				return usageErrorf("score needs --ref and --hyp, or a run directory")
			}
			if len(args) == 0 && f.key != "" {
				return usageErrorf("--key checks a bundle's signature: give it with BUNDLE, not with --ref and --hyp")
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
	fl.StringVar(&f.key, "key", "", "the public `KEY` that must have signed BUNDLE (needed when the bundle does not carry its key)")
	return cmd
}

func (f scoreFlags) options() (score.Options, error) {
	o := score.Options{Normalizer: f.normalizer, Aligner: f.aligner, FailuresAsDeletions: f.failuresDel}
	if err := o.Check(); err != nil {
		return o, &usageError{err}
	}
	return o, nil
}

func scoreFiles(e *env, f scoreFlags) error {
	o, err := f.options()
	if err != nil {
		return err
	}
	ref, err := score.ReadFile(f.ref)
	if err != nil {
		return scoreInputError("read references", err)
	}
	hyp, err := score.ReadFile(f.hyp)
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
	rep := score.NewReport(res, o, f.perUtterance)
	if f.asJSON {
		return writeJSON(e.stdout, rep)
	}
	return score.WriteTable(e.stdout, []score.Report{rep}, f.perUtterance)
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

// scoreRun rescores a run directory or a bundle (verify.OpenRun: its
// signature and subjects are checked with --key, or else with the key it
// carries): the
// measured records of every target against the corpus references in
// run.json (task.Rescore, ASR's pairing rule of claims.json).
func scoreRun(e *env, cmd *cobra.Command, src string, f scoreFlags) error {
	runPath := filepath.Join(src, schemas.RunFile)
	if st, err := os.Stat(src); err != nil || st.IsDir() {
		if _, err := os.Stat(runPath); err != nil {
			return withHint(fmt.Errorf("read run: %w", err), "RUNDIR is a directory written by 'benchseal run'")
		}
	}
	var opts verify.OpenOptions
	if f.key != "" {
		if st, err := os.Stat(src); err == nil && st.IsDir() && !verify.IsExtracted(src) {
			return keyUnusedError(src)
		}
		pub, err := bundle.LoadPublicKey(cmd.Context(), f.key, func() ([]byte, error) { return readPassword(e, false) })
		if err != nil {
			return withHint(fmt.Errorf("loading the verification key: %w", err),
				"--key takes a public key file (benchseal keygen writes NAME.pub), a private key file or a KMS reference")
		}
		opts.PublicKey = pub
	}
	r, err := verify.OpenRun(cmd.Context(), src, opts)
	if err == nil && r.Source == nil && opts.PublicKey != nil {
		// An extracted bundle: OpenRun reads its folder as a run
		// directory, so the key is checked against it here.
		_, err = verify.Open(cmd.Context(), src, verify.OpenOptions{Keep: func(string) bool { return false }, PublicKey: opts.PublicKey})
	}
	var (
		re *verify.RefusedError
		ke *verify.KeyError
	)
	switch {
	case errors.As(err, &re):
		return withHint(fmt.Errorf("score: %w", err), "run benchseal verify %s for every finding", src)
	case errors.As(err, &ke):
		return withHint(fmt.Errorf("score: %w", err), "this bundle does not carry its key: pass --key KEY.pub, the public half of the key it was sealed with")
	case err != nil && r == nil:
		return withHint(fmt.Errorf("read run: %w", err), "give a run directory written by 'benchseal run' or a bundle made by 'benchseal seal'")
	case err != nil:
		return fmt.Errorf("read run: %s: %w", src, err)
	}
	run := r.Run
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
	if tk, err := task.ForRun(&run); err != nil || !task.Rescores(tk) {
		return fmt.Errorf("score run: %s: the run's task is %q; score rescores transcripts, the %s task's", runPath, task.NameOf(&run), strings.Join(rescorable(), ", "))
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	if len(task.References(run)) == 0 {
		return withHint(fmt.Errorf("score run: %s: no clip of the corpus has a reference text", runPath), "give references in the corpus (a .txt next to each WAV, or \"text\" in the manifest)")
	}
	if len(run.Targets) == 0 {
		return fmt.Errorf("score run: %s: no targets", runPath)
	}
	scores, err := task.Rescore(run, r.Records, o)
	var nr *task.NoRecordsError
	if errors.As(err, &nr) {
		return fmt.Errorf("score run: target %q: no records in %s", nr.Target, filepath.Join(src, schemas.RecordsDir, nr.Target))
	}
	if err != nil {
		return fmt.Errorf("score run: %w", err)
	}
	reps := make([]score.Report, 0, len(scores))
	for _, ts := range scores {
		reps = append(reps, ts.Report(o, f.perUtterance))
	}
	if f.asJSON {
		return writeJSON(e.stdout, struct {
			Targets []score.Report `json:"targets"`
		}{reps})
	}
	return score.WriteTable(e.stdout, reps, f.perUtterance)
}

// rescorable names the tasks whose records score rescores.
func rescorable() []string {
	var out []string
	for _, n := range task.Names() {
		if tk, _ := task.Lookup(n); task.Rescores(tk) {
			out = append(out, strconv.Quote(n))
		}
	}
	return out
}
