package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

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

type clipData struct {
	clip schemas.Clip
	sum  [32]byte
	wav  *perturb.WAV // nil when the audio is not at hand
}

// checkVariants is check 5.
func checkVariants(ctx context.Context, rep *Report, ev *evidence, audioDir string) error {
	c := rep.Check(CheckVariants)
	run := ev.run
	nrec := 0
	for _, f := range ev.recFiles {
		nrec += len(ev.records[f])
	}
	clips := map[string]*clipData{}
	for _, cl := range run.Corpus {
		cd := &clipData{clip: cl}
		if b, err := hex.DecodeString(cl.SHA256); err != nil || len(b) != 32 {
			c.failf("run.json", nil, "clip %s: sha256 %q is not a SHA-256", cl.ID, cl.SHA256)
		} else {
			copy(cd.sum[:], b)
		}
		clips[cl.ID] = cd
	}

	if !run.Protocol.Perturb {
		c.warnf("run.json", "PERTURBATION WAS OFF (--no-perturb): every request sent its clip unchanged, so a server cache could answer repeats; these numbers do not measure uncached serving")
		for _, f := range ev.recFiles {
			for i, r := range ev.records[f] {
				if cd, ok := clips[r.Clip]; !ok {
					c.failf(f, nil, "record %d: clip %q is not in run.json's corpus", i+1, r.Clip)
				} else if r.InputSHA256 != cd.clip.SHA256 {
					c.add(Finding{Status: Fail, Path: f, Line: i + 1, Reason: fmt.Sprintf("perturbation off, yet input_sha256 %s is not clip %s's", r.InputSHA256, r.Clip)})
				}
			}
		}
		c.Summary = fmt.Sprintf("%d records sent unperturbed clips", nrec)
		return nil
	}

	missing, err := loadClips(c, ev, clips, audioDir)
	if err != nil {
		return err
	}
	if missing > 0 {
		how := "audio not included"
		if audioDir != "" {
			how = fmt.Sprintf("%d clips not found in %s", missing, audioDir)
		}
		c.warnf("", "%s: variants of %d clips not re-derived (pass --audio DIR with the original clips); plan indices and distinct hashes still checked", how, missing)
	}

	plan := perturb.Plan{Seed: run.Seed}
	type loc struct {
		file string
		line int
	}
	hashes := make(map[string]loc, nrec)
	variants := map[string]map[int64]loc{}
	derived := 0
	for _, f := range ev.recFiles {
		recs := ev.records[f]
		todo := make([]int, 0, len(recs)) // records whose bytes to re-derive
		for i, r := range recs {
			line := i + 1
			cd, ok := clips[r.Clip]
			if !ok {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("clip %q is not in run.json's corpus", r.Clip)})
				continue
			}
			if prev, dup := hashes[r.InputSHA256]; dup {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("input_sha256 %s was also sent by %s:%d: two requests sent the same bytes", short(r.InputSHA256), prev.file, prev.line)})
			} else {
				hashes[r.InputSHA256] = loc{f, line}
			}
			vs := variants[r.Clip]
			if vs == nil {
				vs = map[int64]loc{}
				variants[r.Clip] = vs
			}
			if prev, dup := vs[r.Variant]; dup {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("clip %s variant %d was also used by %s:%d", r.Clip, r.Variant, prev.file, prev.line)})
			} else {
				vs[r.Variant] = loc{f, line}
			}
			samples := cd.clip.Frames * int64(cd.clip.Channels)
			idx, err := plan.Index(cd.sum, samples, r.Variant)
			if err != nil {
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: fmt.Sprintf("clip %s variant %d: %v", r.Clip, r.Variant, err), Err: err})
				continue
			}
			if idx != r.SampleIndex {
				e := &VariantError{Path: f, Line: line, Clip: r.Clip, Variant: r.Variant, Index: r.SampleIndex, What: "sample_index", Want: fmt.Sprint(r.SampleIndex), Got: fmt.Sprint(idx)}
				c.add(Finding{Status: Fail, Path: f, Line: line, Reason: e.reason() + " (not the seeded plan's)", Err: e})
				continue
			}
			if cd.wav != nil {
				todo = append(todo, i)
			}
		}
		errs := derive(recs, todo, clips)
		derived += len(todo)
		for _, e := range errs {
			if e != nil {
				e.Path = f
				c.add(Finding{Status: Fail, Path: f, Line: e.Line, Reason: e.reason(), Err: e})
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	switch c.Status {
	case Pass:
		c.Summary = fmt.Sprintf("%d records: every variant re-derives from its clip, one byte differs, all input hashes distinct", nrec)
	case Warn:
		c.Summary = fmt.Sprintf("%d records: %d variants re-derived, plan indices match, all input hashes distinct", nrec, derived)
	default:
		c.Summary = fmt.Sprintf("%d records checked, %d variants re-derived", nrec, derived)
	}
	return nil
}

// derive re-derives the variants of recs[todo] on every core and returns
// one error (or nil) per entry of todo, in order.
func derive(recs []schemas.Record, todo []int, clips map[string]*clipData) []*VariantError {
	out := make([]*VariantError, len(todo))
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(todo); k += workers {
				i := todo[k]
				r := recs[i]
				cd := clips[r.Clip]
				e := &VariantError{Line: i + 1, Clip: r.Clip, Variant: r.Variant, Index: r.SampleIndex}
				v, err := cd.wav.Variant(r.SampleIndex)
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
				out[k] = e
			}
		}()
	}
	wg.Wait()
	return out
}

// loadClips finds each clip's bytes (in the bundle, else in audioDir by
// SHA-256), checks them against run.json and parses them. It returns how
// many clips have no audio at hand.
func loadClips(c *Check, ev *evidence, clips map[string]*clipData, audioDir string) (int, error) {
	var byHash map[string]string // sha256 -> file in audioDir
	missing := 0
	for _, cl := range ev.run.Corpus {
		cd := clips[cl.ID]
		var b []byte
		name := cl.File
		if ev.f.has(cl.File) {
			var err error
			if b, err = ev.f.read(cl.File); err != nil {
				return 0, err
			}
		} else if audioDir != "" {
			if byHash == nil {
				var err error
				if byHash, err = indexAudio(audioDir); err != nil {
					return 0, err
				}
			}
			if p, ok := byHash[cl.SHA256]; ok {
				var err error
				if b, err = os.ReadFile(p); err != nil {
					return 0, err
				}
				name = p
			}
		}
		if b == nil {
			missing++
			continue
		}
		if got := sha256.Sum256(b); got != cd.sum {
			c.failf(name, nil, "clip %s: sha256 %s, run.json says %s", cl.ID, short(hex.EncodeToString(got[:])), short(cl.SHA256))
			continue
		}
		w, err := perturb.Parse(name, b)
		if err != nil {
			c.failf(name, err, "clip %s: %v", cl.ID, err)
			continue
		}
		if w.Samples() != cl.Frames*int64(cl.Channels) {
			c.failf(name, nil, "clip %s: %d samples, run.json says %d frames of %d channels", cl.ID, w.Samples(), cl.Frames, cl.Channels)
			continue
		}
		cd.wav = w
	}
	return missing, nil
}

// indexAudio hashes every .wav under dir.
func indexAudio(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.EqualFold(filepath.Ext(p), ".wav") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[hex.EncodeToString(sum[:])] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("--audio %s: %w", dir, err)
	}
	return out, nil
}

// short abbreviates a hex digest for a finding; the full one is in Err.
func short(h string) string {
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}
