package main

// What run checks before it measures (--response-format, the signing key
// of --seal) and how it judges what it measured (the failure summary).
// Kept apart from run.go so that the flags and the flow stay readable.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
)

func checkResponseFormat(format string) error {
	if format == "" || slices.Contains(task.ResponseFormats, format) {
		return nil
	}
	return usageErrorf("--response-format %q: want one of %s", format, strings.Join(task.ResponseFormats, ", "))
}

// runSigner loads the --seal key before anything is measured: a missing
// key file, a wrong password or a prompt without a terminal fails now, not
// after hours of GPU time. Nil without --seal.
func runSigner(ctx context.Context, e *env, f *runFlags) (*bundle.Signer, error) {
	if f.seal == "" {
		return nil, nil
	}
	s, err := loadSigner(ctx, e, f.key)
	if err != nil {
		return nil, withHint(err, "--seal signs at the end of the run: fix --key before measuring")
	}
	return s, nil
}

// sealCommand is the command that seals dir as run --seal would have.
func sealCommand(dir, out, key string, incomplete bool) string {
	args := []string{"benchseal", "seal", shellQuote(dir), "-o", shellQuote(out)}
	if key != "" {
		args = append(args, "--key", shellQuote(key))
	}
	if incomplete {
		args = append(args, "--allow-incomplete")
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// summarizeSteps prints one line per target (steps, measured requests that
// succeeded, failures by class) and a warning per step whose error rate is
// above bench.ErrorRateWarn. It returns an error naming the steps that
// failed every measured request: their figures are not measurements.
func summarizeSteps(e *env, targets []string, steps []bench.StepResult) error {
	var allFailed []string
	for _, t := range bench.Summarize(targets, steps) {
		for _, s := range t.AllFailed {
			allFailed = append(allFailed, s.Label())
		}
		for _, s := range t.Noisy {
			failed := s.Requests - s.Succeeded
			warnf(e.stderr, "%s: %d of %d measured requests failed (%.1f %%: %s)", s.Label(), failed, s.Requests,
				100*float64(failed)/float64(s.Requests), classCounts(s.Errors))
		}
		line := fmt.Sprintf("summary: %s: %d steps, %d/%d measured requests ok", t.Target, t.Steps, t.Succeeded, t.Requests)
		if t.Requests > t.Succeeded {
			line += " (failed: " + classCounts(t.Errors) + ")"
		}
		infof(e.stderr, "%s", line)
	}
	if len(allFailed) == 0 {
		return nil
	}
	return withHint(fmt.Errorf("run: %d step(s) failed every measured request: %s", len(allFailed), strings.Join(allFailed, ", ")),
		"each failed request's error is in its record (records/<target>/c<C>-r<R>.jsonl, field error)")
}

// classCounts words failures by class, most frequent first.
func classCounts(m map[string]int) string {
	var parts []string
	for _, c := range bench.ByCount(m) {
		parts = append(parts, fmt.Sprintf("%s %d", c.Class, c.N))
	}
	return strings.Join(parts, ", ")
}

// stoppedHint says what to look at for a target the runner stopped.
func stoppedHint(se *bench.TargetStoppedError, dir string) string {
	var hints []string
	for _, why := range se.WarmupFailed {
		if e, ok := engine.AudioRefused(400, why); ok && strings.HasPrefix(why, "HTTP 400") {
			hints = append(hints, fmt.Sprintf("the server (%s) refused the audio itself: a corpus problem, not a model failure: shorten or re-encode the clips, or raise the server's limit (vLLM: VLLM_MAX_AUDIO_CLIP_FILESIZE_MB, VLLM_MAX_AUDIO_DECODE_DURATION_S)", e))
		} else if strings.HasPrefix(why, "HTTP ") {
			hints = append(hints, "the server refused every warm-up request: check --model, --form and --response-format against what it serves")
		} else {
			hints = append(hints, "the server did not answer the warm-up requests: is it still running?")
		}
		break
	}
	if len(se.Targets) > 0 {
		hints = append(hints, "see servers/<target>/launch.log in "+dir+" for why it exited")
	}
	return strings.Join(hints, "; ")
}

// unknownModelError words a target that does not serve the requested model.
func unknownModelError(err *bench.UnknownModelError) error {
	if err.Ignores != "" {
		return withHint(&usageError{err}, "name the model that answers with --model %s=MODEL (one of the served models): %s answers any name with it, so --allow-unlisted-model would record another name for the same model", err.Target, err.Ignores)
	}
	return withHint(&usageError{err}, "pick one of the served models with --model %s=MODEL, or pass --allow-unlisted-model if the server ignores the model field", err.Target)
}

// corpusError words a corpus (or --audio) problem and, for each file that
// is another audio format under a .wav name, the commands that convert it.
func corpusError(err error) error {
	var hints []string
	for _, nw := range bench.NotWAVs(err) {
		src := strings.TrimSuffix(nw.File, filepath.Ext(nw.File)) + "." + nw.Ext
		hints = append(hints, fmt.Sprintf("%s is %s: convert it with: mv %s %s && ffmpeg -i %s -c:a pcm_s16le %s (or: sox %s -b 16 %s)",
			nw.File, nw.Format, shellQuote(nw.File), shellQuote(src), shellQuote(src), shellQuote(nw.File), shellQuote(src), shellQuote(nw.File)))
	}
	out := fmt.Errorf("corpus: %w", err)
	for i := len(hints) - 1; i >= 0; i-- { // the outermost hint prints first
		out = withHint(out, "%s", hints[i])
	}
	return out
}

// corpusPathError reports whether err is about the corpus path itself
// (missing, not a corpus) rather than about files in it.
func corpusPathError(err error, path string) bool {
	ce, ok := err.(*bench.CorpusError)
	return ok && ce.File == path
}
