package main

// How replay reads the sealed run it re-runs: run.json, claims.json and the
// clips, from a bundle through the hardened reader (signature and subjects
// checked before anything is used) or from a run directory.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// loadSealed reads src, a bundle or a run directory; its clips are read
// by loadClips.
func loadSealed(ctx context.Context, e *env, src, key string) (*session.Sealed, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, withHint(fmt.Errorf("replay: %s: %w", src, unwrapPath(err)),
			"give a bundle made by benchseal seal or a run directory made by benchseal run")
	}
	if st.IsDir() && !verify.IsExtracted(src) {
		if key != "" {
			return nil, keyUnusedError(src)
		}
		warnf(e.stderr, "%s is a run directory: its claims are not sealed; replay a bundle to check signed claims", src)
	}
	s, err := loadSealedFrom(ctx, e, src, key, st.IsDir())
	if err != nil {
		return nil, err
	}
	if !s.Run.Complete {
		warnf(e.stderr, "the sealed run is incomplete (%s): only what it measured can agree", s.Run.Incomplete)
	}
	return s, nil
}

// replayKeeps says which documents replay keeps of the sealed run: run.json,
// claims.json, the clips and the servers' probes before the run, and the
// GPU and host facts the environment diff compares, and a tts round
// trip's ASR server (roundtrip/asr.json).
func replayKeeps(name string) bool {
	return name == schemas.RunFile || name == schemas.ClaimsFile || schemas.IsInput(name) || schemas.IsProbesBefore(name) ||
		name == schemas.GPUInfoFile || name == schemas.HostInfoFile || name == schemas.RoundTripASRFile
}

// sealedRefusal says why a bundle is not replayed and what to do.
func sealedRefusal(file string, err error) error {
	return withHint(fmt.Errorf("replay: %s is refused: %w", file, err), "run benchseal verify %s for every finding", file)
}

// loadSealedFrom opens a bundle (signature and subjects checked before
// anything is decoded) or a run directory through verify.Open.
func loadSealedFrom(ctx context.Context, e *env, src, key string, dir bool) (*session.Sealed, error) {
	variants := map[string]int64{}
	var seen []string // every entry passed, for Sealed.NoteEvidence
	keep := func(name string) bool {
		seen = append(seen, name)
		return replayKeeps(name)
	}
	opts := verify.OpenOptions{Keep: keep, Records: func(_ string, r io.Reader) error { return session.ScanVariants(r, variants) }}
	if key != "" && (!dir || verify.IsExtracted(src)) {
		pub, err := bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
		if err != nil {
			return nil, withHint(fmt.Errorf("replay: loading the verification key: %w", err),
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
		return nil, sealedRefusal(src, re.Err)
	case errors.As(err, &ke):
		return nil, withHint(fmt.Errorf("replay: %s: %w", src, ke.Err), "give --key, the public key of whoever sealed the bundle")
	case errors.As(err, &rd):
		return nil, fmt.Errorf("replay: %s: %w", rd.Path, rd.Err)
	case err != nil:
		return nil, fmt.Errorf("replay: %w", err)
	}
	if dir {
		for _, d := range session.SealedDocs {
			if _, ok := src0.Docs[d.Name]; !ok {
				return nil, withHint(fmt.Errorf("replay: %s: %w", filepath.Join(src, d.Name), syscall.ENOENT),
					"benchseal run writes run.json and claims.json; a run interrupted before its first level has no claims")
			}
		}
		s, err := session.DecodeSealed(src0.Docs, variants)
		if err != nil {
			return nil, fmt.Errorf("%s%c%w", src, filepath.Separator, err)
		}
		s.Origin.Source = src
		if src0.Signed {
			// An extracted bundle: signed, though no archive's bytes name it.
			if !src0.KeyPinned {
				unpinned()
			}
			s.Origin.KeyFingerprint, s.Origin.KeyPinned = src0.KeyFingerprint, src0.KeyPinned
		}
		noteEvidence(s, seen)
		return s, nil
	}
	if !src0.KeyPinned {
		unpinned()
	}
	s, err := session.DecodeSealed(src0.Docs, variants)
	if err != nil {
		return nil, sealedRefusal(src, fmt.Errorf("%s: %w", src, err))
	}
	s.Origin = schemas.ReplayOf{Source: src, BundleSHA256: src0.SHA256, KeyFingerprint: src0.KeyFingerprint,
		KeyPinned: src0.KeyPinned, StartedAt: s.Run.StartedAt}
	noteEvidence(s, seen)
	return s, nil
}

func noteEvidence(s *session.Sealed, names []string) {
	for _, n := range names {
		s.NoteEvidence(n)
	}
}

// loadClips takes the sealed run's clips (session.Sealed.LoadClips) and
// words what is missing.
func loadClips(s *session.Sealed, src, audio string) error {
	err := s.LoadClips(src, audio)
	var (
		ce *session.ClipError
		ae *session.AudioError
	)
	switch {
	case errors.As(err, &ce) && ce.Missing && audio == "":
		return withHint(fmt.Errorf("replay: %w", err),
			"the run was sealed with --no-audio: pass --audio DIR with the original clips (matched by SHA-256)")
	case errors.As(err, &ce) && ce.Missing:
		return withHint(fmt.Errorf("replay: %w", err), "--audio DIR must hold the very clips of the run (run.json's corpus lists their SHA-256)")
	case errors.As(err, &ce):
		return err
	case errors.As(err, &ae):
		return fmt.Errorf("replay: --audio %w", err)
	case err != nil:
		return fmt.Errorf("replay: %w", unwrapPathKeepName(err))
	}
	return nil
}

// unwrapPathKeepName words a *fs.PathError as "path: reason".
func unwrapPathKeepName(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
