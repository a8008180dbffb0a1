package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/internal/tsa"
	"github.com/benchseal/benchseal/schemas"
	"github.com/spf13/cobra"
)

func init() { register(newSealCmd) }

func newSealCmd(e *env) *cobra.Command {
	var (
		out, key                           string
		noAudio, allowIncomplete, sigstore bool
		tf                                 tsaFlags
	)
	cmd := &cobra.Command{
		Use:   "seal RUNDIR -o OUT.tar.zst [--key KEY]",
		Short: "seal a run directory into a signed, deterministic evidence bundle",
		Long: `seal packs every file of the run directory RUNDIR into OUT (tar + zstd) with
attestation.dsse.json first: a DSSE envelope of an in-toto statement listing every
other file with its SHA-256, whose predicate (https://benchseal.dev/evidence/v1)
holds the run's protocol, targets, tool and headline claims. The same run directory
and key always give the same bytes.

--key is a key file (benchseal keygen, cosign generate-key-pair; its password comes
from BENCHSEAL_PASSWORD, COSIGN_PASSWORD or a prompt) or a KMS reference
SCHEME://KEY served by a sigstore KMS plugin (an executable sigstore-kms-SCHEME on
PATH). Without --key an ephemeral key signs and its public half ships in the
bundle as benchseal.pub: the bundle is then intact but its signer is unpinned.

seal refuses a run whose claims.json does not follow from its records and
telemetry (recomputed exactly as verify recomputes them; the first differing
figure is named), a run that did not complete (unless --allow-incomplete), symbolic
links and special files in RUNDIR, and an existing OUT; it writes through a
temporary file, so a failure leaves nothing. It prints the bundle's SHA-256 (in
sha256sum format) and the key's fingerprint on stdout.`,
		Args: exactArgs(1, "one run directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			runDir := args[0]
			if out == "" {
				return usageErrorf("seal needs -o OUT.tar.zst")
			}
			if err := checkSealPaths(runDir, out, sigstore); err != nil {
				return err
			}
			ctx := cmd.Context()
			signer, err := loadSigner(ctx, e, key)
			if err != nil {
				return err
			}
			opts := bundle.SealOptions{NoAudio: noAudio, AllowIncomplete: allowIncomplete,
				Sealer: schemas.Sealer{Name: "benchseal", Version: fingerprint.Version()}}
			url, chain, err := tf.sealAuthority(e, runDir)
			if err != nil {
				return err
			}
			if url == "" {
				return sealWith(ctx, e, runDir, out, key, signer, opts, sigstore)
			}
			opts.Timestamp = session.SealTimestamp(url, chain, nil)
			err = sealWith(ctx, e, runDir, out, key, signer, opts, sigstore)
			var te *session.TimestampError
			if errors.As(err, &te) {
				retry := []string{"benchseal"}
				for _, a := range fingerprint.RedactArgs(e.args) {
					retry = append(retry, shellQuote(a))
				}
				err = withHint(err, "nothing was written; retry when the authority answers: %s", strings.Join(retry, " "))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", "", "write the bundle to `OUT`.tar.zst (never overwritten)")
	f.StringVar(&key, "key", "", "sign with `KEY`: a key file or a KMS reference (default: an ephemeral key)")
	f.BoolVar(&noAudio, "no-audio", false, "leave out inputs/*.wav (their hashes stay in run.json)")
	f.BoolVar(&allowIncomplete, "allow-incomplete", false, "seal a run that did not complete")
	f.BoolVar(&sigstore, "sigstore-bundle", false, "also write OUT.sigstore.json (Sigstore bundle v0.3, public-key hint)")
	addTSAFlags(f, &tf, "time-stamp the seal at this RFC 3161 authority `URL` (attestation.tsr; default: the authority that dated the run's plan, if it was pre-registered)")
	return cmd
}

// loadSigner loads (and decrypts) key, or makes an ephemeral key when key
// is empty. run --seal calls it before measuring, so a missing key file or
// a wrong password costs seconds, not the sweep.
func loadSigner(ctx context.Context, e *env, key string) (*bundle.Signer, error) {
	if key == "" {
		signer, err := bundle.NewEphemeralSigner()
		if err != nil {
			return nil, fmt.Errorf("seal: %w", err)
		}
		return signer, nil
	}
	signer, err := bundle.LoadSigner(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
	if err != nil {
		if errors.Is(err, bundle.ErrKeyPassword) {
			err = withHint(err, "set BENCHSEAL_PASSWORD (or COSIGN_PASSWORD) to the password the key was made with")
		}
		return nil, fmt.Errorf("seal: %w", err)
	}
	return signer, nil
}

// sealWith seals runDir into out with signer (loaded from key, or
// ephemeral when key is empty) and prints what seal prints.
func sealWith(ctx context.Context, e *env, runDir, out, key string, signer *bundle.Signer, opts bundle.SealOptions, sigstore bool) error {
	if opts.AllowIncomplete {
		if err := writeMissingClaims(e, runDir); err != nil {
			return fmt.Errorf("seal %s: %w", runDir, err)
		}
	}
	// The key goes only on claims that follow from the records, as verify
	// will recompute them.
	opts.Check = session.CheckClaims
	line := newStageLine(e, "sealing", 0)
	line.Stage(fmt.Sprintf("%s into %s", runDir, out))
	res, err := session.Seal(ctx, runDir, out, signer, opts, sigstore)
	line.Close()
	var ee *newfile.ExistsError
	var me *session.ClaimsMismatchError
	switch {
	case errors.As(err, &me):
		err = withHint(err, "restore the records and telemetry as the run wrote them and re-run 'benchseal seal'; 'benchseal verify %s' lists every differing figure", runDir)
	case errors.As(err, &ee):
		err = withHint(fmt.Errorf("%s appeared while sealing: %w", out, fs.ErrExist), "seal never overwrites evidence; choose another -o")
	case errors.Is(err, fs.ErrExist):
		err = withHint(err, "benchseal never overwrites a file; choose another name")
	}
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		if errors.Is(err, bundle.ErrIncomplete) {
			err = withHint(err, "seal it anyway with --allow-incomplete; the statement then says it is incomplete")
		}
		return fmt.Errorf("seal %s: %w", runDir, err)
	}
	if res.Ephemeral {
		warnf(e.stderr, "no --key: signed with an ephemeral key; the bundle proves it is intact, not who sealed it (make a key with 'benchseal keygen')")
	}
	if run := res.Statement.Predicate.Run; !run.Complete {
		why := run.Incomplete
		if why == "" {
			why = "no reason recorded"
		}
		warnf(e.stderr, "sealed an incomplete run (%s)", why)
	}
	infof(e.stderr, "sealed %d files (%d bytes) into %s (%d bytes)", res.Statement.Predicate.Files, res.Statement.Predicate.Bytes, out, res.Size)
	if res.Timestamp != nil {
		if tok, _, err := tsa.Parse(res.Timestamp); err == nil {
			infof(e.stderr, "seal time-stamped at %s (%s, beside the attestation)", tok.Time.Format(time.RFC3339), bundle.TimestampName)
		}
	}
	how := "key " + key
	if res.Ephemeral {
		how = "ephemeral key, public half inside the bundle as " + bundle.PublicKeyName
	}
	_, err = fmt.Fprintf(e.stdout, "%s  %s\nkey %s  %s\n", res.SHA256, out, res.Fingerprint, how)
	return err
}

// checkSealPaths refuses, before any work, what would fail at the end.
func checkSealPaths(runDir, out string, sigstore bool) error {
	fi, err := os.Stat(runDir)
	if err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	if !fi.IsDir() {
		return usageErrorf("seal: %s is not a directory", runDir)
	}
	outs := []string{out}
	if sigstore {
		outs = append(outs, out+session.SigstoreSuffix)
	}
	for _, o := range outs {
		if _, err := os.Lstat(o); err == nil {
			return withHint(fmt.Errorf("seal: %s already exists", o), "seal never overwrites evidence; choose another -o")
		}
	}
	absRun, err1 := filepath.Abs(runDir)
	absOut, err2 := filepath.Abs(out)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absRun, absOut); err == nil && filepath.IsLocal(rel) {
			return usageErrorf("seal: -o %s is inside the run directory %s", out, runDir)
		}
	}
	return nil
}
