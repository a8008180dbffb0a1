package main

// How replay reads the sealed run it re-runs: run.json, claims.json and the
// clips, from a bundle through the hardened reader (signature and subjects
// checked before anything is used) or from a run directory.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// sealedRun is what a replay needs of the run it re-runs.
type sealedRun struct {
	run    schemas.Run
	claims schemas.Claims
	clips  map[string]sealedClip // by run.json corpus id, once loadClips ran
	files  map[string][]byte     // the clips at hand, by run-directory path
	origin schemas.ReplayOf
	// nextVariant is, per clip id, one past the highest variant number in
	// the sealed records: where a replay's numbering starts.
	nextVariant map[string]int64
}

// scanVariants reads records (JSONL) to the end and raises next[clip] past
// every variant number it finds. A cut-short last line (a crashed run) ends
// the scan without error: its variant was never complete.
func scanVariants(r io.Reader, next map[string]int64) error {
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

type sealedClip struct {
	from string // where the bytes were read, for messages and the replay's corpus
	wav  *perturb.WAV
	sum  [32]byte
}

// loadSealed reads src, a bundle or a run directory; its clips are read
// by loadClips.
func loadSealed(ctx context.Context, e *env, src, key string) (*sealedRun, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, withHint(fmt.Errorf("replay: %s: %w", src, unwrapPath(err)),
			"give a bundle made by benchseal seal or a run directory made by benchseal run")
	}
	var (
		s     *sealedRun
		files map[string][]byte // the clips at hand, by run-directory path
	)
	if st.IsDir() {
		if key != "" {
			warnf(e.stderr, "%s is a run directory: nothing is signed, --key is not used", src)
		}
		warnf(e.stderr, "%s is a run directory: its claims are not sealed; replay a bundle to check signed claims", src)
	}
	s, files, err = loadSealedFrom(ctx, e, src, key, st.IsDir())
	if err != nil {
		return nil, err
	}
	if !s.run.Complete {
		warnf(e.stderr, "the sealed run is incomplete (%s): only what it measured can agree", s.run.Incomplete)
	}
	s.files = files
	return s, nil
}

// replayDocs are the documents of the sealed run replay decodes.
var replayDocs = []struct{ name, schema string }{{schemas.RunFile, "run"}, {schemas.ClaimsFile, "claims"}}

// replayKeeps says which documents replay keeps of the sealed run: run.json,
// claims.json, the clips and the servers' probes before the run.
func replayKeeps(name string) bool {
	return name == schemas.RunFile || name == schemas.ClaimsFile || schemas.IsInput(name) || schemas.IsProbesBefore(name)
}

// sealedRefusal says why a bundle is not replayed and what to do.
func sealedRefusal(file string, err error) error {
	return withHint(fmt.Errorf("replay: %s is refused: %w", file, err), "run benchseal verify %s for every finding", file)
}

// loadSealedFrom opens a bundle (signature and subjects checked before
// anything is decoded) or a run directory through verify.Open.
func loadSealedFrom(ctx context.Context, e *env, src, key string, dir bool) (*sealedRun, map[string][]byte, error) {
	variants := map[string]int64{}
	opts := verify.OpenOptions{Keep: replayKeeps, Records: func(_ string, r io.Reader) error { return scanVariants(r, variants) }}
	if key != "" && !dir {
		pub, err := bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
		if err != nil {
			return nil, nil, withHint(fmt.Errorf("replay: loading the verification key: %w", err),
				"--key takes a public key file (benchseal keygen writes NAME.pub), a private key file or a KMS reference")
		}
		opts.PublicKey = pub
	}
	src0, err := verify.Open(ctx, src, opts)
	var (
		re *verify.RefusedError
		ke *verify.KeyError
		rd *verify.ReadError
	)
	unpinned := func() {
		warnf(e.stderr, "no --key: the signature is checked with the key %s carries, so the signer is unpinned (it proves the bundle intact, not who sealed it)", src)
	}
	switch {
	case errors.As(err, &re):
		if re.Signature && !re.KeyPinned {
			unpinned()
		}
		return nil, nil, sealedRefusal(src, re.Err)
	case errors.As(err, &ke):
		return nil, nil, withHint(fmt.Errorf("replay: %s: %w", src, ke.Err), "give --key, the public key of whoever sealed the bundle")
	case errors.As(err, &rd):
		return nil, nil, fmt.Errorf("replay: %s: %w", rd.Path, rd.Err)
	case err != nil:
		return nil, nil, fmt.Errorf("replay: %w", err)
	}
	if dir {
		for _, d := range replayDocs {
			if _, ok := src0.Docs[d.name]; !ok {
				return nil, nil, withHint(fmt.Errorf("replay: %s: %w", filepath.Join(src, d.name), syscall.ENOENT),
					"benchseal run writes run.json and claims.json; a run interrupted before its first level has no claims")
			}
		}
		s, err := decodeSealed(src0.Docs, src+string(filepath.Separator))
		if err != nil {
			return nil, nil, err
		}
		s.origin.Source = src
		s.nextVariant = variants
		return s, src0.Docs, nil
	}
	if !src0.KeyPinned {
		unpinned()
	}
	s, err := decodeSealed(src0.Docs, src+": ")
	if err != nil {
		return nil, nil, sealedRefusal(src, err)
	}
	s.nextVariant = variants
	s.origin = schemas.ReplayOf{Source: src, BundleSHA256: src0.SHA256, KeyFingerprint: src0.KeyFingerprint,
		KeyPinned: src0.KeyPinned, StartedAt: s.run.StartedAt}
	return s, src0.Docs, nil
}

func decodeSealed(docs map[string][]byte, prefix string) (*sealedRun, error) {
	s := &sealedRun{nextVariant: map[string]int64{}}
	for _, d := range replayDocs {
		b, ok := docs[d.name]
		if !ok {
			return nil, fmt.Errorf("%s%s is missing", prefix, d.name)
		}
		v := any(&s.run)
		if d.name == "claims.json" {
			v = &s.claims
		}
		if err := decodeDoc(d.schema, b, v); err != nil {
			return nil, fmt.Errorf("%s%s: %w", prefix, d.name, err)
		}
	}
	s.origin.StartedAt = s.run.StartedAt
	return s, nil
}

// ClipError is a clip of the sealed run that replay cannot send as it was
// sent: missing, or not the bytes run.json names.
type ClipError struct {
	Clip, File string
	Reason     string
}

func (e *ClipError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("clip %s: %s", e.Clip, e.Reason)
	}
	return fmt.Sprintf("clip %s (%s): %s", e.Clip, e.File, e.Reason)
}

// loadClips takes each clip of run.json from the bundle's or run
// directory's inputs/, or else from audio, matched by SHA-256, and checks
// it is the clip run.json describes.
func (s *sealedRun) loadClips(src, audio string) error {
	files := s.files
	var byHash map[string]string
	s.clips = map[string]sealedClip{}
	var missing []string
	for _, cl := range s.run.Corpus {
		b, ok := files[cl.File]
		from := src + ":" + cl.File
		if !ok && audio != "" {
			if byHash == nil {
				var err error
				if byHash, err = indexWAVs(audio); err != nil {
					return err
				}
			}
			if p, found := byHash[cl.SHA256]; found {
				var err error
				if b, err = os.ReadFile(p); err != nil {
					return fmt.Errorf("replay: %s: %w", p, unwrapPath(err))
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
		s.clips[cl.ID] = sealedClip{from: from, wav: w, sum: sum}
	}
	if len(missing) == 0 {
		return nil
	}
	err := &ClipError{Clip: strings.Join(missing, ", "), Reason: "audio not in " + src}
	if audio == "" {
		return withHint(fmt.Errorf("replay: %w", err),
			"the run was sealed with --no-audio: pass --audio DIR with the original clips (matched by SHA-256)")
	}
	err.Reason = "not in " + src + " nor, by SHA-256, in " + audio
	return withHint(fmt.Errorf("replay: %w", err), "--audio DIR must hold the very clips of the run (run.json's corpus lists their SHA-256)")
}

// indexWAVs hashes every .wav under dir.
func indexWAVs(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.EqualFold(filepath.Ext(p), ".wav") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[hex.EncodeToString(h.Sum(nil))] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replay: --audio %s: %w", dir, err)
	}
	return out, nil
}
