package session

// What a replay needs of the run it re-runs: run.json, claims.json, the
// clips and where the variant numbering of each clip stopped. The caller
// opens the sealed run (verify.Open checks a bundle's signature and
// subjects first) and hands its documents to DecodeSealed.

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/schedule"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// Sealed is the run a replay re-runs.
type Sealed struct {
	Run    schemas.Run
	Claims schemas.Claims
	Clips  map[string]SealedClip // by run.json corpus id, once LoadClips ran
	Files  map[string][]byte     // the documents and clips at hand, by run-directory path
	Origin schemas.ReplayOf
	// NextVariant is, per clip id, one past the highest variant number in
	// the sealed records: where a replay's numbering starts.
	NextVariant map[string]int64

	// ServerEvidence is, per target, the per-request server evidence the
	// sealed run holds (NoteEvidence).
	ServerEvidence map[string]SealedEvidence

	// launchOverridden: the targets LaunchCommands started with the
	// caller's command instead of the sealed one (EnvDiff says so).
	launchOverridden map[string]bool
}

// SealedClip is a clip of the sealed run, checked against run.json.
type SealedClip struct {
	From   string // where the bytes were read, for messages and the replay's corpus
	WAV    *perturb.WAV
	SHA256 [32]byte
}

// SealedDocs are the documents DecodeSealed needs, with their schemas.
var SealedDocs = []struct{ Name, Schema string }{{schemas.RunFile, "run"}, {schemas.ClaimsFile, "claims"}}

// DocError is a document of the sealed run that is missing (Err nil) or
// does not decode against its schema.
type DocError struct {
	Name string
	Err  error
}

func (e *DocError) Error() string {
	if e.Err == nil {
		return e.Name + " is missing"
	}
	return e.Name + ": " + e.Err.Error()
}
func (e *DocError) Unwrap() error { return e.Err }

// DecodeSealed decodes run.json and claims.json of docs (each validated
// against its schema first); next is the variant numbering ScanVariants
// found in the records.
func DecodeSealed(docs map[string][]byte, next map[string]int64) (*Sealed, error) {
	s := &Sealed{Files: docs, NextVariant: next}
	if s.NextVariant == nil {
		s.NextVariant = map[string]int64{}
	}
	for _, d := range SealedDocs {
		b, ok := docs[d.Name]
		if !ok {
			return nil, &DocError{Name: d.Name}
		}
		v := any(&s.Run)
		if d.Name == schemas.ClaimsFile {
			v = &s.Claims
		}
		if err := schemas.Decode(d.Schema, b, v); err != nil {
			return nil, &DocError{Name: d.Name, Err: err}
		}
	}
	s.Origin.StartedAt = s.Run.StartedAt
	return s, nil
}

// ScanVariants reads records (JSONL) to the end and raises next[clip] past
// every variant number it finds. A cut-short last line (a crashed run) ends
// the scan without error: its variant was never complete.
func ScanVariants(r io.Reader, next map[string]int64) error {
	dec := json.NewDecoder(r)
	for {
		var rec struct {
			Clip    string `json:"clip"`
			Variant int64  `json:"variant"`
		}
		err := dec.Decode(&rec)
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			_, err = io.Copy(io.Discard, r)
			return err
		}
		if err != nil {
			return err
		}
		if rec.Variant+1 > next[rec.Clip] {
			next[rec.Clip] = rec.Variant + 1
		}
	}
}

// ClipError is a clip of the sealed run that a replay cannot send as it
// was sent: missing, or not the bytes run.json names.
type ClipError struct {
	Clip, File string
	Reason     string
	// Missing says the clips (Clip lists them) were found neither in the
	// sealed run nor in the audio folder.
	Missing bool
}

func (e *ClipError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("clip %s: %s", e.Clip, e.Reason)
	}
	return fmt.Sprintf("clip %s (%s): %s", e.Clip, e.File, e.Reason)
}

// AudioError is a folder of clips that could not be read.
type AudioError struct {
	Dir string
	Err error
}

func (e *AudioError) Error() string { return e.Dir + ": " + e.Err.Error() }
func (e *AudioError) Unwrap() error { return e.Err }

// LoadClips takes each clip of run.json from the sealed run's inputs/
// (src names it in messages), or else from the folder audio, matched by
// SHA-256, and checks it is the clip run.json describes. An item without
// a reference clip (schemas.PerturbNoReference) has none to load.
func (s *Sealed) LoadClips(src, audio string) error {
	var byHash map[string]string
	s.Clips = map[string]SealedClip{}
	var missing []string
	for _, cl := range s.Run.Corpus {
		if cl.NoInput() {
			continue
		}
		b, ok := s.Files[cl.File]
		from := src + ":" + cl.File
		if !ok && audio != "" {
			if byHash == nil {
				var err error
				if byHash, err = task.IndexWAVs(audio); err != nil {
					return &AudioError{Dir: audio, Err: err}
				}
			}
			p, found := byHash[cl.SHA256]
			if !found && cl.SourceSHA256 != "" {
				p, found = byHash[cl.SourceSHA256] // its FLAC or MP3 source, decoded again
			}
			if found {
				var err error
				if b, err = task.ReadIndexed(p); err != nil {
					return err
				}
				ok, from = true, p
			}
		}
		if !ok {
			missing = append(missing, cl.ID)
			continue
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != cl.SHA256 {
			return &ClipError{Clip: cl.ID, File: from, Reason: fmt.Sprintf("sha256 %s, run.json says %s", got, cl.SHA256)}
		}
		w, err := perturb.Parse(from, b)
		if err != nil {
			return &ClipError{Clip: cl.ID, File: from, Reason: err.Error()}
		}
		if w.Samples() != cl.Frames*int64(cl.Channels) {
			return &ClipError{Clip: cl.ID, File: from, Reason: fmt.Sprintf("%d samples, run.json says %d frames of %d channels", w.Samples(), cl.Frames, cl.Channels)}
		}
		s.Clips[cl.ID] = SealedClip{From: from, WAV: w, SHA256: sum}
	}
	if len(missing) == 0 {
		return nil
	}
	err := &ClipError{Clip: strings.Join(missing, ", "), Reason: "audio not in " + src, Missing: true}
	if audio != "" {
		err.Reason = "not in " + src + " nor, by SHA-256, in " + audio
	}
	return err
}

// ReplayOptions are a replay's departures from the sealed run; each one
// taken is recorded in Sealed.Origin.Overrides.
type ReplayOptions struct {
	URLs         map[string]string // target name -> URL instead of the sealed one
	Only         []string          // replay only these targets (nil: all)
	Forms        [][2]string       // form fields (key, value) set on every target, in order; values never recorded
	GPUs         map[string][]int  // nil: the sealed run's
	Seed         *uint64           // another seed (nil: the sealed one, variants numbered from a random point past its)
	SameVariants bool              // send the sealed run's variants again
	// Rand gives each clip's random first variant number past the sealed
	// run's (nil: crypto/rand), so that two replays of one bundle do not
	// send the same variants.
	Rand    io.Reader
	Timeout time.Duration // 0: the sealed run's
	Command []string      // the replay's command line, redacted
}

// RedactedError is a target URL (Field "") or form field that was
// redacted when sealed, so a replay cannot send it without being given it.
type RedactedError struct {
	Target, Field, URL string
}

func (e *RedactedError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("target %q's URL was redacted when sealed (%s)", e.Target, e.URL)
	}
	return fmt.Sprintf("target %q's form field %q was redacted when sealed", e.Target, e.Field)
}

// Plan rebuilds the sealed run's plan (LoadClips must have run) with o's
// departures, and returns it with the request timeout and the GPUs of each
// target.
func (s *Sealed) Plan(o ReplayOptions) (bench.Plan, time.Duration, map[string][]int, error) {
	run := s.Run
	pr := run.Protocol
	var p bench.Plan
	if pr.TargetOrder != "" && pr.TargetOrder != "alternate" {
		return p, 0, nil, fmt.Errorf("the sealed run's target order %q is not one benchseal runs", pr.TargetOrder)
	}
	// The sealed run's task: a run of another task replays as that task,
	// and one this benchseal does not know is refused, never run as ASR.
	tk, err := task.ForRun(&run)
	if err != nil {
		return p, 0, nil, err
	}
	if pr.SuccessRule != tk.SuccessRule() {
		return p, 0, nil, fmt.Errorf("the sealed run's success rule %q is not one benchseal runs for its task %q", pr.SuccessRule, tk.Name())
	}
	p.Task = tk
	gpus := map[string][]int{}
	for k, v := range o.GPUs {
		gpus[k] = v
	}
	ov := &s.Origin.Overrides
	forms := map[string]string{}
	for _, kv := range o.Forms {
		forms[kv[0]] = kv[1]
		*ov = append(*ov, fmt.Sprintf("form field %s given (value not recorded)", kv[0]))
	}
	for _, t := range run.Targets {
		if len(o.Only) > 0 && !slices.Contains(o.Only, t.Name) {
			continue
		}
		url := t.URL
		if u, ok := o.URLs[t.Name]; ok && u != url {
			url = u
			*ov = append(*ov, fmt.Sprintf("target %s url %s (sealed: %s)", t.Name, fingerprint.Redact(u), t.URL))
		}
		if strings.Contains(url, fingerprint.Redacted) {
			return p, 0, nil, &RedactedError{Target: t.Name, URL: url}
		}
		fields := map[string]string{}
		maps.Copy(fields, t.RequestFields)
		maps.Copy(fields, forms)
		for k, v := range fields {
			if strings.Contains(v, fingerprint.Redacted) {
				return p, 0, nil, &RedactedError{Target: t.Name, Field: k}
			}
		}
		p.Targets = append(p.Targets, bench.Target{Name: t.Name, URL: url, Model: t.Model, Fields: fields})
		if o.GPUs == nil {
			gpus[t.Name] = slices.Clone(t.GPUs)
		}
	}
	if len(o.Only) > 0 {
		*ov = append(*ov, "only "+strings.Join(o.Only, ", "))
	}
	for _, cl := range run.Corpus {
		if cl.NoInput() { // a named voice: its request again, unchanged
			p.Corpus = append(p.Corpus, bench.Clip{ID: cl.ID, Source: cl.Source, Language: cl.Language, Speak: cl.Speak, Voice: cl.Voice})
			continue
		}
		c := s.Clips[cl.ID]
		p.Corpus = append(p.Corpus, bench.Clip{ID: cl.ID, Source: c.From, Text: cl.Text, Language: cl.Language, Speak: cl.Speak, Voice: cl.Voice, WAV: c.WAV, SHA256: c.SHA256})
	}
	p.Levels, p.Requests, p.Passes, p.Repeats = slices.Clone(pr.Levels), slices.Clone(pr.Requests), pr.Passes, pr.Repeats
	if pr.Mode == schemas.ModeOpen {
		// An open loop's levels are its rates (bench numbers them again),
		// with the sealed burstiness and bound: the same schedule.
		k, err := strconv.ParseFloat(pr.Burstiness, 64)
		if err != nil {
			return p, 0, nil, fmt.Errorf("run.json: burstiness %q: %v", pr.Burstiness, err)
		}
		p.Levels, p.Rates, p.Burstiness, p.MaxConcurrency = nil, slices.Clone(pr.RequestRates), k, pr.MaxConcurrency
		if p.Ramp, err = schedule.RampFromProtocol(pr); err != nil {
			return p, 0, nil, fmt.Errorf("run.json: ramp_up: %v", err)
		}
		if fs := pr.FixedSchedule; fs != nil {
			p.Fixed, p.FixedSHA256 = schedule.Durations(fs.OffsetsNs), fs.SourceSHA256
		}
	}
	p.SLO = pr.SLO
	p.Percentiles = slices.Clone(pr.Percentiles) // the sealed run's latency percentiles, compared with the replay's
	if len(pr.Warmup) > 0 && p.Ramp == nil {     // a ramp sets its own
		p.Warmup = slices.Clone(pr.Warmup)
	}
	p.WarmupOnce = pr.WarmupOnce // --compat seedtts's schedule
	p.CacheProbe = pr.CacheProbe // the active cache probe, re-run when the sealed run made one
	p.Seed, p.NoPerturb, p.Stream, p.Scoring = run.Seed, !pr.Perturb, pr.Stream, run.Scoring
	switch {
	case o.Seed != nil && *o.Seed != run.Seed:
		p.Seed = *o.Seed
		*ov = append(*ov, fmt.Sprintf("seed %d (sealed: %d)", *o.Seed, run.Seed))
	case o.Seed == nil && !o.SameVariants && pr.Perturb:
		if err := s.randomFirstVariants(&p, o.Rand); err != nil {
			return p, 0, nil, err
		}
		*ov = append(*ov, "variants numbered from a random point past the sealed run's")
	}
	timeout := time.Duration(pr.TimeoutS * float64(time.Second))
	if o.Timeout > 0 && o.Timeout != timeout {
		*ov = append(*ov, fmt.Sprintf("timeout %v (sealed: %v)", o.Timeout, timeout))
		timeout = o.Timeout
	}
	if timeout <= 0 {
		timeout = bench.DefaultTimeout
	}
	p.Command = o.Command
	return p, timeout, gpus, nil
}

// randomFirstVariants numbers each clip's variants of p from a random
// point past the sealed run's (NextVariant), drawn uniformly among the
// starts that leave the replay's variants inside the clip's permutation,
// and records the starts in Origin.FirstVariant (clip id -> number). A
// replay under the sealed seed so sends none of the sealed run's variants
// (the plan is a permutation: numbers never used give indices never used),
// and two replays share one only where their random ranges overlap.
func (s *Sealed) randomFirstVariants(p *bench.Plan, rnd io.Reader) error {
	if rnd == nil {
		rnd = rand.Reader
	}
	need, err := bench.VariantsNeeded(*p)
	if err != nil {
		return err
	}
	p.FirstVariant = map[[32]byte]int64{}
	s.Origin.FirstVariant = map[string]int64{}
	var b [8]byte
	for _, c := range p.Corpus {
		if c.NoInput() {
			continue // nothing perturbed, nothing numbered
		}
		lo := s.NextVariant[c.ID]
		first := lo
		if span := c.WAV.Samples() - need[c.SHA256] - lo; span > 0 {
			if _, err := io.ReadFull(rnd, b[:]); err != nil {
				return fmt.Errorf("random first variant: %w", err)
			}
			first += int64(binary.LittleEndian.Uint64(b[:]) % uint64(span+1))
		}
		p.FirstVariant[c.SHA256] = first
		s.Origin.FirstVariant[c.ID] = first
	}
	return nil
}
