package main

// What run checks before it measures (--response-format, the signing key
// of --seal) and how it judges what it measured (the failure summary).
// Kept apart from run.go so that the flags and the flow stay readable.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

func checkResponseFormat(format string, formats []string) error {
	if format == "" || slices.Contains(formats, format) {
		return nil
	}
	return usageErrorf("--response-format %q: want one of %s", format, strings.Join(formats, ", "))
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

// summarizeSteps prints one line per target (steps, stopped or not,
// measured requests that succeeded, failures by class, short steps; se
// names the targets the runner stopped, nil when none) and a warning per
// step whose error rate is above bench.ErrorRateWarn. It returns an error naming the steps that
// failed every measured request: their figures are not measurements.
func summarizeSteps(e *env, targets []string, steps []bench.StepResult, planned int, se *bench.TargetStoppedError) error {
	var allFailed []string
	for _, t := range bench.Summarize(targets, steps, planned) {
		if se != nil {
			_, gone := se.Targets[t.Target]
			_, warm := se.WarmupFailed[t.Target]
			_, unreachable := se.Unreachable[t.Target]
			t.Stopped = t.Stopped || gone || warm || unreachable
		}
		for _, s := range t.AllFailed {
			allFailed = append(allFailed, s.Label())
		}
		for _, s := range t.Noisy {
			failed := s.Requests - s.Succeeded
			warnf(e.stderr, "%s: %d of %d measured requests failed (%.1f %%: %s)", s.Label(), failed, s.Requests,
				100*float64(failed)/float64(s.Requests), classCounts(s.Errors))
		}
		infof(e.stderr, "%s", summaryLine(t))
	}
	if len(allFailed) == 0 {
		return nil
	}
	return withHint(fmt.Errorf("run: %d step(s) failed every measured request: %s", len(allFailed), strings.Join(allFailed, ", ")),
		"each failed request's error is in its record (records/<target>/c<C>-r<R>.jsonl, field error)")
}

// summarizeAttempts says which steps were measured again because their
// closed loop stalled (internal/bench, attempt.go), and returns an error
// naming those whose last attempt still stalled: verify's check 7 will
// FAIL them, so the run is not "ok".
func summarizeAttempts(e *env, res *bench.Result) error {
	for _, d := range res.Discarded {
		infof(e.stderr, "%s c=%d r=%d: attempt %d discarded and measured again (stalls %.1f %% of the %s phase's worker time, above the %.0f %% verify allows); kept in %s",
			d.Target, d.Concurrency, d.Repeat, d.Attempt, 100*d.Stall.Share, d.Stall.Phase, 100*claims.MaxStallShare,
			schemas.AttemptRecordsPath(d.Target, d.Concurrency, d.Repeat, d.Attempt))
	}
	if len(res.Stalled) == 0 {
		return nil
	}
	var steps []string
	for _, s := range res.Stalled {
		warnf(e.stderr, "CLOSED LOOP STALLED: %s", bench.StalledMessage(s))
		steps = append(steps, fmt.Sprintf("%s c=%d r=%d (%.1f %%)", s.Target, s.Concurrency, s.Repeat, 100*s.Stall.Share))
	}
	return withHint(fmt.Errorf("run: %d step(s) still stalled after %d attempts, so verify will fail them: %s", len(res.Stalled), 1+bench.MaxRemeasures, strings.Join(steps, ", ")),
		"the client could not keep C requests in flight: run the client on a quieter host (or one of its own), or lower the concurrency")
}

// summaryLine words one target's summary: its steps (of those planned,
// when fewer ran, and why), its measured requests that succeeded, its
// failures by class, and the steps that measured fewer than planned:
//
//	summary: a: 2 of 4 steps (stopped), 40/40 measured requests ok; short: c=1 r=2 0 of 20
func summaryLine(t bench.TargetSummary) string {
	steps := plural(t.Steps, "step")
	if t.Planned > 0 && t.Steps < t.Planned {
		steps = fmt.Sprintf("%d of %d steps", t.Steps, t.Planned)
	}
	switch {
	case t.Stopped:
		steps += " (stopped)"
	case t.Interrupted:
		steps += " (interrupted)"
	}
	line := fmt.Sprintf("summary: %s: %s, %d/%d measured requests ok", t.Target, steps, t.Succeeded, t.Requests)
	if t.Requests > t.Succeeded {
		line += " (failed: " + classCounts(t.Errors) + ")"
	}
	if len(t.Short) > 0 {
		var short []string
		for _, s := range t.Short {
			level := fmt.Sprintf("c=%d", s.Concurrency)
			if s.Rate > 0 {
				level = strconv.FormatFloat(s.Rate, 'g', -1, 64) + " req/s"
			}
			short = append(short, fmt.Sprintf("%s r=%d %d of %d", level, s.Repeat, s.Requests, s.Planned))
		}
		line += "; short: " + strings.Join(short, ", ")
	}
	return line
}

// trimV1 drops a trailing /v1 from the URL of each --target NAME=URL,
// saying so: benchseal adds /v1/models and /v1/audio/transcriptions
// itself, and http://host:8000/v1 (how an OpenAI client's base URL is
// written) would otherwise be asked GET /v1/v1/models and answer 404.
func trimV1(e *env, specs []string) []string {
	out := slices.Clone(specs)
	for i, spec := range out {
		name, url, ok := strings.Cut(spec, "=")
		trimmed := strings.TrimSuffix(strings.TrimSuffix(url, "/"), "/v1")
		if !ok || trimmed == strings.TrimSuffix(url, "/") {
			continue
		}
		out[i] = name + "=" + trimmed
		infof(e.stderr, "--target %s=%s: using %s (benchseal adds /v1/... itself)", name, url, trimmed)
	}
	return out
}

// corpusLine says, before the run, what the corpus holds: its clips and
// seconds, each audio format (rate, sample size, channels) with its count,
// and the clips without a reference transcript, whose accuracy is not
// scored. A 44.1 kHz stereo clip and a clip without a reference are
// measured as any other; this line is where the user first sees them:
//
//	corpus: 6 clips, 31.2 s of audio: 5 at 16 kHz 16-bit mono, 1 at 44.1 kHz 16-bit stereo; 1 without a reference transcript (b), not scored
//
// A corpus of texts (task.Words.Texts: tts) is worded as one
// (ttsCorpusLine): its items are texts to speak and its clips reference voices, not transcribed audio.
func corpusLine(taskName string, clips []bench.Clip) string {
	if tk, err := task.Named(taskName); err == nil && task.WordsOf(tk).Texts {
		return ttsCorpusLine(clips)
	}
	return clipsLine(clips)
}

// clipsLine is corpusLine of ASR's clips.
func clipsLine(clips []bench.Clip) string {
	var seconds float64
	formats := map[string]int{}
	var noRef []string
	for _, c := range clips {
		seconds += c.WAV.Seconds()
		f := c.WAV.Format
		ch := fmt.Sprintf("%d channels", f.Channels)
		switch f.Channels {
		case 1:
			ch = "mono"
		case 2:
			ch = "stereo"
		}
		formats[fmt.Sprintf("%s kHz %d-bit %s", strconv.FormatFloat(float64(f.SampleRate)/1000, 'f', -1, 64), f.BitsPerSample, ch)]++
		if strings.TrimSpace(c.Text) == "" {
			noRef = append(noRef, c.ID)
		}
	}
	var parts []string
	for _, fc := range bench.ByCount(formats) {
		parts = append(parts, fmt.Sprintf("%d at %s", fc.N, fc.Class))
	}
	line := fmt.Sprintf("corpus: %s, %.1f s of audio: %s", plural(len(clips), "clip"), seconds, strings.Join(parts, ", "))
	decoded := map[string]int{}
	for _, c := range clips {
		if c.SourceFormat != "" {
			decoded[strings.ToUpper(c.SourceFormat)]++
		}
	}
	if len(decoded) > 0 {
		var from []string
		for _, fc := range bench.ByCount(decoded) {
			from = append(from, fmt.Sprintf("%d from %s", fc.N, fc.Class))
		}
		line += " (decoded to WAV: " + strings.Join(from, ", ") + ")"
	}
	switch {
	case len(noRef) == 0:
		line += "; every clip has a reference transcript"
	case len(noRef) == len(clips):
		line += "; no reference transcripts: accuracy (WER) is not scored"
	default:
		shown := noRef
		if len(shown) > 5 {
			shown = append(slices.Clone(shown[:5]), "...")
		}
		line += fmt.Sprintf("; %d without a reference transcript (%s): not scored", len(noRef), strings.Join(shown, ", "))
	}
	return line
}

// ttsCorpusLine is corpusLine of a tts corpus: its items, those without a
// reference clip (named voices) first (noInputLine), then the reference
// clips' audio:
//
//	corpus: 2 items, each a text to speak with a reference clip; 2 reference clips, 3.1 s of audio: 2 at 24 kHz 16-bit mono
func ttsCorpusLine(clips []bench.Clip) string {
	var withInput []bench.Clip
	var noInput []string
	for _, c := range clips {
		if c.NoInput() {
			noInput = append(noInput, c.ID)
		} else {
			withInput = append(withInput, c)
		}
	}
	if len(noInput) > 0 {
		return noInputLine(withInput, noInput)
	}
	return fmt.Sprintf("corpus: %s, each a text to speak with a reference clip; %s", plural(len(clips), "item"), refClipsLine(withInput))
}

// refClipsLine words a tts corpus's reference clips: "2 reference clips,
// 3.1 s of audio: 2 at 24 kHz 16-bit mono" (ASR's words of its clips
// without what they say of reference transcripts: a tts clip's is its
// ref_text).
func refClipsLine(clips []bench.Clip) string {
	rest := strings.TrimPrefix(clipsLine(clips), "corpus: ")
	rest = strings.Replace(rest, plural(len(clips), "clip"), plural(len(clips), "reference clip"), 1)
	if i := strings.Index(rest, "; "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// noInputLine is ttsCorpusLine of a corpus with items without a
// reference clip (noInput, their ids), which are sent unchanged:
//
//	corpus: 3 items, 2 without a reference clip (a, b): sent unchanged every time, nothing to perturb; 1 reference clip, 1.5 s of audio: ...
func noInputLine(clips []bench.Clip, noInput []string) string {
	shown := noInput
	if len(shown) > 5 {
		shown = append(slices.Clone(shown[:5]), "...")
	}
	line := fmt.Sprintf("corpus: %s, %d without a reference clip (%s): sent unchanged every time, nothing to perturb", plural(len(clips)+len(noInput), "item"), len(noInput), strings.Join(shown, ", "))
	if len(clips) == 0 {
		return line
	}
	return line + "; " + refClipsLine(clips)
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
