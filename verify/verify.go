package verify

import (
	"context"
	"crypto"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/schemas"
)

// Options change how Bundle and Dir verify.
type Options struct {
	// PublicKey checks the signature. Nil: the key the bundle carries
	// (benchseal.pub) is used and check 2 says WARN: the signer is
	// unpinned, which proves the bundle intact but not who sealed it.
	PublicKey crypto.PublicKey
	// Limits bound the archive (check 1). The zero value means
	// bundle.DefaultLimits, never "no limit".
	Limits bundle.Limits
	// AudioDir holds the original clips of a bundle sealed with --no-audio,
	// matched to run.json's corpus by SHA-256 (file names do not matter),
	// so that check 5 can re-derive the variants.
	AudioDir string
	// MemoryLimit caps the bytes of a bundle's files kept in memory
	// (0: DefaultMemoryLimit, 16 MiB); the rest are spilled to a
	// temporary file under TempDir ("" : the system's) and removed
	// on return. Clips are read back one at a time (see the package doc,
	// "Resources").
	MemoryLimit int64
	TempDir     string
	// RenderReport, when set, renders REPORT.md from a run's documents as
	// benchseal run writes it: docs holds run.json, claims.json,
	// env/gpu.json, env/host.json and each servers/<t>/probes-before.json
	// that the run has, by path. Check 6 compares what it renders with the
	// sealed REPORT.md. Nil: REPORT.md is not compared, and check 6 says
	// so ("not observed"). The renderer is the caller's to give because
	// internal/report depends on this package.
	RenderReport func(docs map[string][]byte) ([]byte, error)
	// RenderReportTool is the binary SHA-256 of the benchseal whose
	// renderer RenderReport is. When it is the one run.json's tool names, a
	// REPORT.md that differs does not follow from the data (FAIL); from
	// another build it may be an older or newer layout, and a difference is
	// a WARN.
	RenderReportTool string
	// RenderReportRules is the rules version of RenderReport's renderer
	// (internal/report.RulesVersion). A REPORT.md whose last line names
	// the same rules (schemas.ReportRules) must be what it renders, byte
	// for byte (FAIL); one naming other rules, or none, WARNs when it
	// differs.
	RenderReportRules int
	// Original is the bundle a sealed replay re-ran (the one its
	// predicate names by SHA-256). With it, check 6 recomputes the
	// replay's signed comparison from both sides' claims; without it, only
	// from the replay's side, and the original's figures are not observed.
	Original string
	// TSAChain pins the time-stamping authority (check 11): its tokens
	// must chain to these certificates. Nil: they are checked against the
	// chain the run sealed, or the certificates each token carries, and
	// check 11 says the authority is unpinned.
	TSAChain []*x509.Certificate
	// LogKey pins the transparency log (check 11): a pre-registered plan's
	// Rekor entry must verify with this public key (PEM). Nil: with the
	// key the run sealed, and check 11 says the log is unpinned.
	LogKey []byte
	// Progress, when set, is told each stage as it begins: "reading the
	// archive", "loading the evidence", then "check 5 of 11: variants"
	// for each check run (a caller's progress line; benchseal verify's on
	// stderr).
	Progress func(stage string)
}

// stage tells opts.Progress, if any, that stage begins.
func (o Options) stage(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

// maxEnvelope caps attestation.dsse.json, as bundle.Open does.
const maxEnvelope = 64 << 20

// Bundle verifies a sealed bundle read once from r and returns the whole
// checklist. The error is only for what prevents verifying at all (ctx
// cancelled, the spill directory failing); a damaged or hostile archive is
// a Report with failing checks.
func Bundle(ctx context.Context, r io.Reader, opts Options) (*Report, error) {
	limits := opts.Limits
	if limits == (bundle.Limits{}) {
		limits = bundle.DefaultLimits
	}
	budget := opts.MemoryLimit
	if budget <= 0 {
		budget = DefaultMemoryLimit
	}
	rep := &Report{Kind: "bundle", Checks: newChecks()}
	if opts.PublicKey != nil {
		// Pinned by the caller, whether or not check 2 gets to run (a
		// damaged archive skips it).
		rep.Pinned = true
		rep.Key, _ = bundle.Fingerprint(opts.PublicKey)
	}
	fl := newFiles()
	defer fl.close()

	b := &bundle.Bundle{}
	opts.stage("reading the archive")
	unsafe, err := readBundle(ctx, r, limits, b, fl, &budget, opts.TempDir)
	if ferr := fl.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	ev := &evidence{f: fl, bundle: b, unsafe: unsafe, key: opts.PublicKey, tsaChain: opts.TSAChain, logKey: opts.LogKey}
	if unsafe == nil {
		opts.stage("loading the evidence")
		if err := loadEvidence(ctx, ev, opts); err != nil {
			return nil, err
		}
	}
	if err := runChecklist(ctx, rep, ev, opts); err != nil {
		return nil, err
	}
	return rep, nil
}

// archiveProblem names what is wrong with an archive the reader refused:
// "damaged" (cut short, corrupt, not a bundle at all) or "unsafe" (what a
// hostile archive does: links, escaping names, duplicates, odd modes,
// sizes beyond the limits, extra frames).
func archiveProblem(err error) string {
	for _, e := range []error{bundle.ErrCorrupt, bundle.ErrTruncated, bundle.ErrEmpty} {
		if errors.Is(err, e) {
			return "damaged"
		}
	}
	return "unsafe"
}

// readBundle streams the archive once, hashing every entry (bundle.Reader)
// and keeping its bytes for the later checks. unsafe is the reader's
// refusal, err what stopped reading for another reason.
func readBundle(ctx context.Context, r io.Reader, limits bundle.Limits, b *bundle.Bundle, fl *files, budget *int64, tempDir string) (unsafe, err error) {
	rd, err := bundle.NewReader(r, limits)
	if err != nil {
		return err, nil
	}
	defer rd.Close()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err, nil
		}
		if len(b.Entries) == 0 {
			if e.Name != bundle.AttestationName {
				return &bundle.EntryError{Name: e.Name, Reason: bundle.ErrNoAttestation}, nil
			}
			if e.Size > maxEnvelope {
				return &bundle.EntryError{Name: e.Name, Reason: fmt.Errorf("%w: %d bytes, limit %d", bundle.ErrTooLarge, e.Size, maxEnvelope)}, nil
			}
			if b.Envelope, err = io.ReadAll(rd); err != nil {
				return err, nil
			}
			b.Entries = append(b.Entries, *e)
			continue
		}
		if err := fl.keep(e.Name, e.Size, rd, budget, tempDir); err != nil {
			var ee *bundle.EntryError
			if errors.As(err, &ee) {
				return err, nil
			}
			return nil, err
		}
		// keep read the entry to its end, so the reader has hashed it.
		fl.sum[e.Name] = e.SHA256
		if e.Name == bundle.PublicKeyName {
			b.PublicPEM, _ = fl.read(e.Name)
		}
		b.Entries = append(b.Entries, *e)
	}
	if len(b.Entries) == 0 {
		return &bundle.EntryError{Reason: bundle.ErrNoAttestation}, nil
	}
	return nil, nil
}

// Dir verifies an unsealed run directory: checks 4 to 10 (there is no
// archive, signature or statement: checks 1 to 3 are SKIP, unless the
// directory holds something seal would refuse). A folder holding
// attestation.dsse.json is an extracted bundle (IsExtracted, Report.Kind
// "extracted bundle"): checks 2 and 3 then run as on the archive, with
// opts.PublicKey, on the files as they are on disk; check 1 has no archive
// to read and holds the files to what seal would accept.
func Dir(ctx context.Context, dir string, opts Options) (*Report, error) {
	// A folder without run.json is not a run directory: stop before
	// reading every JSON document beneath it.
	if st, err := os.Stat(filepath.Join(dir, schemas.RunFile)); err != nil || !st.Mode().IsRegular() {
		return nil, &NotRunDirError{Dir: dir}
	}
	rep := &Report{Source: dir, Kind: "run directory", Checks: newChecks()}
	fl, odd, err := dirFiles(dir)
	if err != nil {
		return nil, err
	}
	ev := &evidence{f: fl, odd: odd, tsaChain: opts.TSAChain, logKey: opts.LogKey}
	if IsExtracted(dir) {
		// Signed: checks 2 and 3 hold the files on disk to the statement.
		rep.Kind = "extracted bundle"
		if ev.bundle, err = dirBundle(fl); err != nil {
			return nil, err
		}
		ev.extracted, ev.key = true, opts.PublicKey
		if opts.PublicKey != nil {
			rep.Pinned = true
			rep.Key, _ = bundle.Fingerprint(opts.PublicKey)
		}
	}
	opts.stage("loading the evidence")
	if err := loadEvidence(ctx, ev, opts); err != nil {
		return nil, err
	}
	if err := runChecklist(ctx, rep, ev, opts); err != nil {
		return nil, err
	}
	return rep, nil
}

// NotRunDirError: Dir was given a folder with no run.json at its top.
type NotRunDirError struct{ Dir string }

func (e *NotRunDirError) Error() string {
	return fmt.Sprintf("%s: not a run directory (no run.json)", e.Dir)
}
