package main

// How replay reads the sealed run it re-runs: run.json, claims.json and the
// clips, from a bundle through the hardened reader (signature and subjects
// checked before anything is used) or from a run directory.

import (
	"bytes"
	"context"
	"crypto"
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

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
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

// isRecords says whether a run-directory path is a records file.
func isRecords(name string) bool {
	return strings.HasPrefix(name, "records/") && strings.HasSuffix(name, ".jsonl")
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
		s, files, err = loadSealedDir(src)
	} else {
		s, files, err = loadSealedBundle(ctx, e, src, key)
	}
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
var replayDocs = []struct{ name, schema string }{{"run.json", "run"}, {"claims.json", "claims"}}

func loadSealedDir(dir string) (*sealedRun, map[string][]byte, error) {
	docs := map[string][]byte{}
	for _, d := range replayDocs {
		b, err := readCappedFile(filepath.Join(dir, d.name))
		if err != nil {
			return nil, nil, withHint(fmt.Errorf("replay: %s: %w", filepath.Join(dir, d.name), unwrapPath(err)),
				"benchseal run writes run.json and claims.json; a run interrupted before its first level has no claims")
		}
		docs[d.name] = b
	}
	s, err := decodeSealed(docs, dir+string(filepath.Separator))
	if err != nil {
		return nil, nil, err
	}
	s.origin.Source = dir
	recs, _ := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	for _, name := range recs {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %s: %w", name, unwrapPath(err))
		}
		err = scanVariants(f, s.nextVariant)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %s: %w", name, err)
		}
	}
	files := map[string][]byte{}
	for _, cl := range s.run.Corpus {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(cl.File)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // looked for in --audio
		}
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %s: %w", filepath.Join(dir, cl.File), unwrapPath(err))
		}
		files[cl.File] = b
	}
	if err := sealedProbes(dir, files); err != nil {
		return nil, nil, err
	}
	return s, files, nil
}

// sealedRefusal says why a bundle is not replayed and what to do.
func sealedRefusal(file string, err error) error {
	return withHint(fmt.Errorf("replay: %s is refused: %w", file, err), "run benchseal verify %s for every finding", file)
}

// loadSealedBundle reads a bundle once through the hardened reader,
// keeping the attestation, the embedded key, run.json, claims.json and
// inputs/*.wav, then checks the signature and that every entry is the
// subject the statement signed, before decoding anything.
func loadSealedBundle(ctx context.Context, e *env, file, key string) (*sealedRun, map[string][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("replay: %s: %w", file, unwrapPath(err))
	}
	defer f.Close()
	h := sha256.New()
	tee := io.TeeReader(f, h)
	rd, err := bundle.NewReader(tee, bundle.DefaultLimits)
	if err != nil {
		return nil, nil, sealedRefusal(file, err)
	}
	defer rd.Close()
	b := &bundle.Bundle{}
	kept := map[string][]byte{}
	variants := map[string]int64{}
	for {
		ent, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, sealedRefusal(file, err)
		}
		if len(b.Entries) == 0 && ent.Name != bundle.AttestationName {
			return nil, nil, sealedRefusal(file, &bundle.EntryError{Name: ent.Name, Reason: bundle.ErrNoAttestation})
		}
		keep := len(b.Entries) == 0 || ent.Name == bundle.PublicKeyName || ent.Name == "run.json" || ent.Name == "claims.json" ||
			(strings.HasPrefix(ent.Name, "inputs/") && strings.HasSuffix(ent.Name, ".wav")) || isProbesBefore(ent.Name)
		limit := int64(maxReportDoc)
		if strings.HasPrefix(ent.Name, "inputs/") {
			limit = bundle.DefaultLimits.MaxEntrySize
		}
		switch {
		case isRecords(ent.Name):
			if err := scanVariants(rd, variants); err != nil {
				return nil, nil, sealedRefusal(file, &bundle.EntryError{Name: ent.Name, Reason: err})
			}
		case !keep:
			if _, err := io.Copy(io.Discard, rd); err != nil {
				return nil, nil, sealedRefusal(file, err)
			}
		case ent.Size > limit:
			return nil, nil, sealedRefusal(file, &bundle.EntryError{Name: ent.Name,
				Reason: fmt.Errorf("%w: %d bytes, replay reads at most %d", bundle.ErrTooLarge, ent.Size, limit)})
		default:
			var buf bytes.Buffer
			buf.Grow(int(ent.Size))
			if _, err := io.Copy(&buf, rd); err != nil {
				return nil, nil, sealedRefusal(file, err)
			}
			kept[ent.Name] = buf.Bytes()
		}
		// Reading to the end set the entry's digest.
		b.Entries = append(b.Entries, *ent)
	}
	if len(b.Entries) == 0 {
		return nil, nil, sealedRefusal(file, &bundle.EntryError{Reason: bundle.ErrNoAttestation})
	}
	// The digest that names a bundle is of the whole file, trailing bytes included.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, nil, fmt.Errorf("replay: %s: %w", file, err)
	}
	b.Envelope, b.PublicPEM = kept[bundle.AttestationName], kept[bundle.PublicKeyName]

	var pub crypto.PublicKey
	pinned := key != ""
	if pinned {
		pub, err = bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
		if err != nil {
			return nil, nil, withHint(fmt.Errorf("replay: loading the verification key: %w", err),
				"--key takes a public key file (benchseal keygen writes NAME.pub), a private key file or a KMS reference")
		}
	} else {
		if pub, err = b.EmbeddedKey(); err != nil {
			return nil, nil, withHint(fmt.Errorf("replay: %s: %w", file, err), "give --key, the public key of whoever sealed the bundle")
		}
		warnf(e.stderr, "no --key: the signature is checked with the key %s carries, so the signer is unpinned (it proves the bundle intact, not who sealed it)", file)
	}
	st, err := b.Verify(pub)
	if err != nil {
		return nil, nil, sealedRefusal(file, err)
	}
	if err := b.CheckSubjects(st); err != nil {
		return nil, nil, sealedRefusal(file, err)
	}
	s, err := decodeSealed(kept, file+": ")
	if err != nil {
		return nil, nil, sealedRefusal(file, err)
	}
	s.nextVariant = variants
	fp, err := bundle.Fingerprint(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("replay: %s: the signing key: %w", file, err)
	}
	s.origin = schemas.ReplayOf{Source: file, BundleSHA256: hex.EncodeToString(h.Sum(nil)), KeyFingerprint: fp,
		KeyPinned: pinned, StartedAt: s.run.StartedAt}
	return s, kept, nil
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
