package verify

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/par"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// VariantError is a record whose input does not re-derive from its clip:
// the plan gives another sample index, or flipping the recorded sample
// gives other bytes than the ones the record says were sent.
type VariantError struct {
	Path    string // records file
	Line    int    // 1-based record number in it
	Clip    string
	Variant int64
	Index   int64  // the record's sample_index
	Want    string // what the record says (sha256, index or offset)
	Got     string // what re-deriving gives
	What    string // "sample_index", "input_sha256", "byte_offset"
}

func (e *VariantError) Error() string {
	return fmt.Sprintf("%s:%d: clip %s variant %d: %s %s, re-derived %s", e.Path, e.Line, e.Clip, e.Variant, e.What, e.Want, e.Got)
}

func (e *VariantError) reason() string {
	return fmt.Sprintf("clip %s variant %d: %s is %s, re-derived %s", e.Clip, e.Variant, e.What, e.Want, e.Got)
}

// clipData is one clip of run.json's corpus, where its bytes are, and the
// records whose variants are re-derived from it.
type clipData struct {
	clip schemas.Clip
	sum  [32]byte
	// name is the clip's file among the bundle's or run directory's
	// files, or else path its file in AudioDir; both "" when the audio is
	// not at hand.
	name, path string
	// digest is the clip's SHA-256 (hex) when something already hashed it
	// (bundle.Reader as the file streamed past, or the AudioDir index):
	// the clip is not hashed again to compare it with run.json.
	digest string
	// decode says path is the clip's FLAC or MP3 source (found by its
	// source_sha256), decoded when loaded (task.ReadIndexed).
	decode bool
	todo   []recRef
}

// recRef is a record: its file and its index in ev.records[file].
type recRef struct {
	file string
	i    int
}

// checkVariants is check 5.
func checkVariants(ctx context.Context, rep *Report, ev *evidence, audioDir string) error {
	c := rep.Check(CheckVariants)
	run := ev.run
	nrec := 0
	for _, f := range ev.recFiles {
		nrec += len(ev.records[f])
	}
	clips, order := corpusClips(c, run)
	tk, err := task.ForRun(run)
	if err != nil {
		c.failf("run.json", err, "%v", err)
		return nil
	}

	checkSeconds(c, ev, tk, order, clips)
	checkTaskRecords(c, ev, tk)
	unchanged := checkNoInput(c, ev, clips)

	if !run.Protocol.Perturb {
		return checkUnperturbed(ctx, c, ev, tk, clips, order, audioDir, nrec)
	}

	missing, err := findClips(ev, order, audioDir)
	if err != nil {
		return err
	}
	if missing > 0 {
		how := "audio not included"
		if audioDir != "" {
			how = fmt.Sprintf("%d clips not found in %s", missing, audioDir)
		}
		// Without the audio, checkSeconds only holds run.json to itself: the
		// frames and sample rate it divides are the sealer's word.
		c.warnKindf(KindAudioMissing, "", "%s: variants of %d clips not re-derived and their lengths (seconds, sample rate, frames) unverified, so RTFx rests on run.json alone; plan indices and distinct hashes still checked", how, missing)
	}

	probeRepeats, err := queueRecords(ctx, c, ev, tk, clips, nrec)
	if err != nil {
		return err
	}

	res, err := derive(ctx, ev, tk, order)
	if err != nil {
		return err
	}
	for _, f := range res.clips {
		c.add(f)
	}
	slices.SortFunc(res.errs, func(a, b *VariantError) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	for _, e := range res.errs {
		c.add(Finding{Status: Fail, Path: e.Path, Line: e.Line, Reason: e.reason(), Err: e})
	}
	switch c.Status {
	case Pass:
		c.Summary = fmt.Sprintf("%d records: every variant re-derives from its clip, one byte differs, all input hashes distinct", nrec)
	case Warn:
		c.Summary = fmt.Sprintf("%d records: %d variants re-derived, plan indices match, all input hashes distinct", nrec, res.derived)
	default:
		c.Summary = fmt.Sprintf("%d records checked, %d variants re-derived", nrec, res.derived)
	}
	if len(probeRepeats) > 0 && c.Status != Fail {
		// "all distinct" holds for every other record: say which are not.
		c.Summary += fmt.Sprintf(" but the cache probe's %s, which send their clip's own bytes by design", probeHalf(ev, probeRepeats, "repeats"))
	}
	if unchanged > 0 && c.Status != Fail {
		c.Summary += fmt.Sprintf("; %d requests of items without a reference clip sent unchanged (nothing to perturb)", unchanged)
	}
	return nil
}

// corpusClips is run.json's corpus as check 5 works through it: by id,
// and in run.json's order.
func corpusClips(c *Check, run *schemas.Run) (map[string]*clipData, []*clipData) {
	clips := map[string]*clipData{}
	order := make([]*clipData, 0, len(run.Corpus))
	for _, cl := range run.Corpus {
		cd := &clipData{clip: cl}
		if cl.NoInput() {
			// No input, no hash: checkNoInput holds its records.
			if cl.SHA256 != "" || cl.File != "" {
				c.failf("run.json", nil, "clip %s: perturb %q (no reference clip), yet file %q and sha256 %q name one", cl.ID, cl.Perturb, cl.File, cl.SHA256)
			}
		} else if b, err := hex.DecodeString(cl.SHA256); err != nil || len(b) != 32 {
			c.failf("run.json", nil, "clip %s: sha256 %q is not a SHA-256", cl.ID, cl.SHA256)
		} else {
			copy(cd.sum[:], b)
		}
		clips[cl.ID] = cd
		order = append(order, cd)
	}
	return clips, order
}

// checkUnperturbed is check 5 of a run without perturbation: every
// record sent its clip's own bytes, but the cache probe's variant half,
// which is re-derived; the clips' bytes and lengths are still checked.
func checkUnperturbed(ctx context.Context, c *Check, ev *evidence, tk task.Task, clips map[string]*clipData, order []*clipData, audioDir string, nrec int) error {
	c.warnKindf(KindNoPerturb, "run.json", "PERTURBATION WAS OFF: every request sent its clip unchanged, so a server cache could answer repeats; these numbers do not measure uncached serving")
	var probeVars []recRef // the probe's variant half: perturbed even here
	for _, f := range ev.recFiles {
		for i, r := range ev.records[f] {
			if r.Phase == schemas.PhaseProbe && r.SampleIndex >= 0 {
				probeVars = append(probeVars, recRef{f, i})
				continue
			}
			if cd, ok := clips[r.Clip]; ok && cd.clip.NoInput() {
				continue // checkNoInput
			} else if !ok {
				c.failf(f, nil, "record %d: clip %q is not in run.json's corpus", i+1, r.Clip)
			} else if r.InputSHA256 != cd.clip.SHA256 {
				c.add(Finding{Status: Fail, Path: f, Line: i + 1, Reason: fmt.Sprintf("perturbation off, yet input_sha256 %s is not clip %s's", r.InputSHA256, r.Clip)})
			}
		}
	}
	// The clips' bytes and lengths are still checked: RTFx rests on them.
	if _, err := findClips(ev, order, audioDir); err != nil {
		return err
	}
	plan := perturb.Plan{Seed: ev.run.Seed}
	seen := map[string]recRef{}
	for _, ref := range probeVars {
		r := ev.records[ref.file][ref.i]
		cd, ok := clips[r.Clip]
		if !ok {
			c.add(Finding{Status: Fail, Path: ref.file, Line: ref.i + 1, Reason: fmt.Sprintf("clip %q is not in run.json's corpus", r.Clip)})
			continue
		}
		if prev, dup := seen[r.InputSHA256]; dup {
			c.add(Finding{Status: Fail, Path: ref.file, Line: ref.i + 1, Reason: fmt.Sprintf("input_sha256 %s was also sent by %s:%d: two probe variants sent the same bytes", short(r.InputSHA256), prev.file, prev.i+1)})
			continue
		}
		seen[r.InputSHA256] = ref
		queueVariant(c, plan, tk, cd, ref, r)
	}
	res, err := derive(ctx, ev, tk, order)
	if err != nil {
		return err
	}
	for _, f := range res.clips {
		c.add(f)
	}
	for _, e := range res.errs {
		c.add(Finding{Status: Fail, Path: e.Path, Line: e.Line, Reason: e.reason(), Err: e})
	}
	c.Summary = fmt.Sprintf("%d records sent unperturbed clips", nrec-len(probeVars))
	switch {
	case len(probeVars) > 0 && c.Status == Fail:
		c.Summary += fmt.Sprintf("; the cache probe's %s checked, %d re-derived", probeHalf(ev, probeVars, "variants"), res.derived)
	case len(probeVars) > 0 && res.derived == len(probeVars):
		c.Summary += fmt.Sprintf("; the cache probe's %s re-derive from their clip, all distinct", probeHalf(ev, probeVars, "variants"))
	case len(probeVars) > 0:
		c.Summary += fmt.Sprintf("; the cache probe's %s: plan indices match, all distinct, %d re-derived (audio not at hand for the rest)", probeHalf(ev, probeVars, "variants"), res.derived)
	}
	return nil
}

// queueRecords holds every record of a perturbed run to the plan and to
// distinct bytes and variants, and queues it for re-deriving; it returns
// the cache probe's repeat half, which sends its clip's own bytes.
func queueRecords(ctx context.Context, c *Check, ev *evidence, tk task.Task, clips map[string]*clipData, nrec int) ([]recRef, error) {
	run := ev.run
	plan := perturb.Plan{Seed: run.Seed}
	type loc struct {
		file string
		line int
	}
	hashes := make(map[string]loc, nrec)
	variants := map[string]map[int64]loc{}
	var probeRepeats []recRef
	for _, f := range ev.recFiles {
		for i, r := range ev.records[f] {
			line := i + 1
			cd, ok := clips[r.Clip]
			if !ok {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("clip %q is not in run.json's corpus", r.Clip)})
				continue
			}
			if cd.clip.NoInput() {
				continue // sent unchanged by design: checkNoInput holds it
			}
			if probeRepeat(r) {
				// The cache probe's repeat half sends the clip's own
				// bytes on purpose, the same bytes every time.
				probeRepeats = append(probeRepeats, recRef{f, i})
				if r.InputSHA256 != cd.clip.SHA256 || r.Variant != -1 || r.ByteOffset != -1 {
					c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("probe repeat: input_sha256 %s, variant %d, byte_offset %d; a repeat sends clip %s's own bytes (variant -1, byte_offset -1)", short(r.InputSHA256), r.Variant, r.ByteOffset, r.Clip)})
				}
				continue
			}
			if _, retry := retryOf(run.Protocol, r); retry {
				// A retried warm-up sends its warm-up's bytes again on
				// purpose; check 5's schedule holds it to that warm-up's
				// variant, and its bytes are re-derived below.
			} else if prev, dup := hashes[r.InputSHA256]; dup {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("input_sha256 %s was also sent by %s:%d: two requests sent the same bytes", short(r.InputSHA256), prev.file, prev.line)})
			} else {
				hashes[r.InputSHA256] = loc{f, line}
			}
			vs := variants[r.Clip]
			if vs == nil {
				vs = map[int64]loc{}
				variants[r.Clip] = vs
			}
			if _, retry := retryOf(run.Protocol, r); retry {
			} else if prev, dup := vs[r.Variant]; dup {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("clip %s variant %d was also used by %s:%d", r.Clip, r.Variant, prev.file, prev.line)})
			} else {
				vs[r.Variant] = loc{f, line}
			}
			queueVariant(c, plan, tk, cd, recRef{f, i}, r)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}

	return probeRepeats, nil
}

// queueVariant holds record r (at ref) to the seeded plan's sample index
// of its variant and, when its clip's audio is at hand, queues it for
// re-deriving.
func queueVariant(c *Check, plan perturb.Plan, tk task.Task, cd *clipData, ref recRef, r schemas.Record) {
	idx, err := plan.Index(cd.sum, tk.Positions(cd.clip), r.Variant)
	if err != nil {
		c.add(Finding{Status: Fail, Path: ref.file, Line: ref.i + 1, Reason: fmt.Sprintf("clip %s variant %d: %v", r.Clip, r.Variant, err), Err: err})
		return
	}
	if idx != r.SampleIndex {
		e := &VariantError{Path: ref.file, Line: ref.i + 1, Clip: r.Clip, Variant: r.Variant, Index: r.SampleIndex, What: "sample_index", Want: fmt.Sprint(r.SampleIndex), Got: fmt.Sprint(idx)}
		c.add(Finding{Status: Fail, Path: ref.file, Line: ref.i + 1, Reason: e.reason() + " (not the seeded plan's)", Err: e})
		return
	}
	if cd.name != "" || cd.path != "" {
		cd.todo = append(cd.todo, ref)
	}
}

// checkSeconds checks the audio durations RTFx is computed from (claims
// sum the records' audio_seconds): each clip's seconds must be its frames
// over its sample rate, as the runner computes it, and each record's
// audio_seconds the seconds the task's RTFx counts (internal/task's
// RecordSeconds of the run's task: ASR's the clip's, TTS's the audio its
// recorded output says was produced). Without
// it, records claiming longer audio would inflate RTFx and still
// recompute to the same claims.
func checkSeconds(c *Check, ev *evidence, tk task.Task, order []*clipData, clips map[string]*clipData) {
	for _, cd := range order {
		cl := cd.clip
		if cl.SampleRate <= 0 {
			continue // the schema check says why; an item without input has no length
		}
		if want := tk.Seconds(cl.Frames, cl.SampleRate); cl.Seconds != want {
			c.failf("run.json", nil, "clip %s: seconds %v, but %d frames at %d Hz are %v", cl.ID, cl.Seconds, cl.Frames, cl.SampleRate, want)
		}
	}
	for _, f := range ev.recFiles {
		for i, r := range ev.records[f] {
			cd, ok := clips[r.Clip]
			if !ok || cd.clip.SampleRate <= 0 && !cd.clip.NoInput() {
				continue // reported with the variants
			}
			in := 0.0 // an item without input: no input seconds (tts counts its output's)
			if !cd.clip.NoInput() {
				in = tk.Seconds(cd.clip.Frames, cd.clip.SampleRate)
			}
			want := tk.RecordSeconds(in, r.Text) // ASR: the clip's; TTS: the audio its output says was produced
			switch {
			case r.Seconds == want:
			case want == in:
				c.add(Finding{Status: Fail, Path: f, Line: i + 1, Reason: fmt.Sprintf("audio_seconds %v, but clip %s is %v s (%d frames at %d Hz)",
					r.Seconds, r.Clip, want, cd.clip.Frames, cd.clip.SampleRate)})
			default:
				c.add(Finding{Status: Fail, Path: f, Line: i + 1, Reason: fmt.Sprintf("audio_seconds %v, but the output the record keeps is %v s of audio (task %s)",
					r.Seconds, want, tk.Name())})
			}
		}
	}
}

// findClips says where each clip's bytes are: in the files, else in
// audioDir (matched by SHA-256). It returns how many clips have no audio
// at hand.
func findClips(ev *evidence, order []*clipData, audioDir string) (int, error) {
	var byHash map[string]string // sha256 -> file in audioDir
	missing := 0
	for _, cd := range order {
		switch {
		case cd.clip.NoInput():
			continue // nothing to find
		case ev.f.has(cd.clip.File):
			cd.name, cd.digest = cd.clip.File, ev.f.sum[cd.clip.File]
			continue
		case audioDir == "":
		default:
			if byHash == nil {
				var err error
				if byHash, err = task.IndexWAVs(audioDir); err != nil {
					return 0, fmt.Errorf("reading the clips in %s: %w", audioDir, err)
				}
			}
			if p, ok := byHash[cd.clip.SHA256]; ok {
				cd.path, cd.digest = p, cd.clip.SHA256
				continue
			}
			if p, ok := byHash[cd.clip.SourceSHA256]; ok && cd.clip.SourceSHA256 != "" {
				// Its source, decoded again: the decoded WAV is hashed
				// and held to sha256 as any clip is.
				cd.path, cd.decode = p, true
				continue
			}
		}
		missing++
	}
	return missing, nil
}

// derived is what derive found: findings about clips (in corpus order),
// records whose variant does not re-derive, and how many were re-derived.
type derived struct {
	clips   []Finding
	errs    []*VariantError
	derived int
}

// share is a part of one clip's records to re-derive. A clip is one share
// or, with many records, several, so that every core has work even when
// a run sent one clip over and over.
type share struct {
	clip     int // index into the clips
	from, to int // its records: todo[from:to]
}

// clipChunk is how many records of one clip a share re-derives: enough to
// make a checkpointed hasher pay, few enough to share one clip among cores.
const clipChunk = 64

// derive checks each clip's bytes against run.json and re-derives the
// variants of its records, on every core, clip by clip. A clip's bytes are
// held only while its shares run (shares go out clip by clip, so about one
// clip per core at a time), with one task.Input (the run's task's:
// for ASR a perturb.Hasher over the WAV) shared by its shares.
func derive(ctx context.Context, ev *evidence, tk task.Task, order []*clipData) (*derived, error) {
	var shares []share
	for ci, cd := range order {
		if cd.name == "" && cd.path == "" {
			continue
		}
		for from := 0; from == 0 || from < len(cd.todo); from += clipChunk {
			shares = append(shares, share{clip: ci, from: from, to: min(from+clipChunk, len(cd.todo))})
		}
	}
	d := &deriver{ev: ev, tk: tk, order: order, opened: make([]*openClip, len(order)), clipFindings: make([]*Finding, len(order))}
	for _, t := range shares {
		if d.opened[t.clip] == nil {
			d.opened[t.clip] = &openClip{}
		}
		d.opened[t.clip].pending.Add(1)
	}
	par.For(len(shares), func(_, k int) bool {
		if d.stopped.Load() || ctx.Err() != nil {
			return false
		}
		d.run(shares[k])
		return true
	})
	if d.ioErr != nil {
		return nil, d.ioErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, f := range d.clipFindings {
		if f != nil {
			d.out.clips = append(d.out.clips, *f)
		}
	}
	return &d.out, nil
}

// deriver is one derive's state, shared by the cores.
type deriver struct {
	ev           *evidence
	tk           task.Task
	order        []*clipData
	opened       []*openClip
	clipFindings []*Finding // by clip: its bytes or length not run.json's

	mu      sync.Mutex // guards out, ioErr and free
	out     derived
	ioErr   error
	stopped atomic.Bool
	// free are buffers for clips read from disk: a plain free list, not
	// a sync.Pool, which may drop what it is given (and does, on
	// purpose, under the race detector), so that reading clip after clip
	// reuses about one buffer per core.
	free []*[]byte
}

// openClip is a clip being worked on: loaded by its first share, dropped
// by its last.
type openClip struct {
	once    sync.Once
	hasher  task.Input // nil when the clip is not usable
	buf     *[]byte    // pooled buffer holding the bytes, nil for kept files
	pending atomic.Int32
}

func (d *deriver) getBuf() *[]byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := len(d.free); n > 0 {
		b := d.free[n-1]
		d.free = d.free[:n-1]
		return b
	}
	return new([]byte)
}

func (d *deriver) putBuf(b *[]byte) {
	d.mu.Lock()
	d.free = append(d.free, b)
	d.mu.Unlock()
}

// load reads clip ci and opens it as the task's input, after checking
// its bytes and length against run.json (a finding when they differ:
// the clip is then not used).
func (d *deriver) load(ci int, o *openClip) {
	cd := d.order[ci]
	var b []byte
	var err error
	name := cd.name
	switch {
	case cd.name != "" && d.ev.f.mem[cd.name] != nil:
		b = d.ev.f.mem[cd.name]
	case cd.name != "":
		o.buf = d.getBuf()
		b, err = d.ev.f.readInto(cd.name, *o.buf)
		*o.buf = b
	case cd.decode:
		name = cd.path
		b, err = task.ReadIndexed(cd.path)
	default:
		name = cd.path
		o.buf = d.getBuf()
		b, err = readFileInto(cd.path, *o.buf)
		*o.buf = b
	}
	if err != nil {
		d.mu.Lock()
		d.ioErr = cmp.Or(d.ioErr, err)
		d.mu.Unlock()
		d.stopped.Store(true)
		return
	}
	cl := cd.clip
	h, err := d.tk.Input(name, b)
	digest := cd.digest
	if digest == "" && h != nil {
		s := h.Sum() // makes every checkpoint too: the variants hash only their tails
		digest = hex.EncodeToString(s[:])
	} else if digest == "" {
		s := sha256.Sum256(b)
		digest = hex.EncodeToString(s[:])
	}
	var f *Finding
	switch {
	case digest != cl.SHA256:
		f = &Finding{Status: Fail, Path: name, Reason: fmt.Sprintf("clip %s: sha256 %s, run.json says %s", cl.ID, short(digest), short(cl.SHA256))}
	case err != nil:
		f = &Finding{Status: Fail, Path: name, Reason: fmt.Sprintf("clip %s: %v", cl.ID, err), Err: err}
	case h.Check(cl) != nil:
		f = &Finding{Status: Fail, Path: name, Reason: fmt.Sprintf("clip %s: %v", cl.ID, h.Check(cl))}
	default:
		o.hasher = h
	}
	d.clipFindings[ci] = f
}

// run re-derives one share's records, loading its clip first if no share
// did and dropping it after the clip's last share.
func (d *deriver) run(t share) {
	o := d.opened[t.clip]
	o.once.Do(func() { d.load(t.clip, o) })
	defer func() {
		if o.pending.Add(-1) == 0 {
			o.hasher = nil
			if o.buf != nil {
				d.putBuf(o.buf)
			}
		}
	}()
	if o.hasher == nil {
		return
	}
	var errs []*VariantError
	for _, ref := range d.order[t.clip].todo[t.from:t.to] {
		r := d.ev.records[ref.file][ref.i]
		e := &VariantError{Path: ref.file, Line: ref.i + 1, Clip: r.Clip, Variant: r.Variant, Index: r.SampleIndex}
		v, err := o.hasher.Variant(r.SampleIndex)
		switch {
		case err != nil:
			e.What, e.Want, e.Got = "sample_index", fmt.Sprint(r.SampleIndex), err.Error()
		case hex.EncodeToString(v.SHA256[:]) != r.InputSHA256:
			e.What, e.Want, e.Got = "input_sha256", short(r.InputSHA256), short(hex.EncodeToString(v.SHA256[:]))
		case v.ByteOffset != r.ByteOffset:
			e.What, e.Want, e.Got = "byte_offset", fmt.Sprint(r.ByteOffset), fmt.Sprint(v.ByteOffset)
		default:
			continue
		}
		errs = append(errs, e)
	}
	d.mu.Lock()
	d.out.errs = append(d.out.errs, errs...)
	d.out.derived += t.to - t.from
	d.mu.Unlock()
}

// short abbreviates a hex digest for a finding; the full one is in Err.
func short(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// probeHalf counts one half of the cache probe's records (its repeats or
// its variants) the way run --help, the progress line and claims.json do:
// "17 repeats (16 in its pairs + 1 warm-up)", the pairs being what
// claims.json's probes[].repeats and .variants count.
func probeHalf(ev *evidence, refs []recRef, half string) string {
	warm := 0
	for _, ref := range refs {
		if ev.records[ref.file][ref.i].Seq < claims.ProbeWarmup {
			warm++
		}
	}
	return fmt.Sprintf("%d %s (%d in its pairs + %d warm-up)", len(refs), half, len(refs)-warm, warm)
}

// probeRepeat says r is of the cache probe's repeat half: the clip's
// identical bytes, sample_index -1.
func probeRepeat(r schemas.Record) bool { return r.Phase == schemas.PhaseProbe && r.SampleIndex < 0 }
