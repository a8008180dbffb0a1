package main

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/export"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/spf13/cobra"
)

func init() { register(newExportCmd) }

type exportFlags struct {
	format, out, key, tsaCert string
}

func newExportCmd(e *env) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export (BUNDLE.tar.zst | DIR) --format csv|parquet|jsonl -o DIR [--key KEY]",
		Short: "flat tables of a verified bundle's requests and claims, as CSV, Parquet or JSONL",
		Long: `export writes what a bundle holds as two flat tables a spreadsheet or a
dataframe opens as they are: requests.FORMAT, one row per request (every
record: target, level, repeat, phase, times, latency, status, error class and
the task's figures), and claims.FORMAT, one row per target, level and repeat
of claims.json, then the level's median, min and max rows. The columns and
their order are the same in every format; docs/export.md names each.

It exports only what verifies: every check of benchseal verify runs first
(the signature with --key, or with the key the bundle carries), and a bundle
with a failing check is refused, with nothing written. DIR may also be a run
directory or an extracted bundle, verified the same way (nothing in a run
directory is signed).

-o DIR must not exist or be empty; export never overwrites a file, and a
failure leaves nothing behind.`,
		Example: `  benchseal export qwen3-asr.tar.zst --key team.pub --format parquet -o tables/
  benchseal export runs/qwen3-asr --format csv -o csv/`,
		Args: exactArgs(1, "one bundle or run directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), e, &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "`csv`, parquet or jsonl (required)")
	fl.StringVarP(&f.out, "out", "o", "", "write requests.FORMAT and claims.FORMAT into `DIR` (must not exist or be empty)")
	fl.StringVar(&f.key, "key", "", "the public `KEY` that must have signed the bundle (default: the key it carries, unpinned)")
	fl.StringVar(&f.tsaCert, "tsa-cert", "", "the time-stamping authority's certificate chain (PEM) a pre-registered run's tokens must chain to")
	return cmd
}

func runExport(ctx context.Context, e *env, f *exportFlags, src string) error {
	if !slices.Contains(export.Formats, f.format) {
		if f.format == "" {
			return usageErrorf("--format is required: csv, parquet or jsonl")
		}
		return usageErrorf("--format %q: want csv, parquet or jsonl", f.format)
	}
	if f.out == "" {
		return usageErrorf("-o DIR is required: the folder export writes its tables into")
	}
	if ents, err := os.ReadDir(f.out); err == nil && len(ents) > 0 {
		return withHint(usageErrorf("-o %s is not empty", f.out), "give -o a new directory; export never overwrites files")
	}
	info, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("export: %s: %w", src, unwrapPath(err))
	}
	if f.key != "" && info.IsDir() && !verify.IsExtracted(src) {
		return keyUnusedError(src)
	}
	opts := verify.Options{RenderReport: renderRunReport, RenderReportRules: report.RulesVersion}
	if opts.TSAChain, err = loadTSAChain(f.tsaCert); err != nil {
		return err
	}
	if t, err := fingerprint.Tool(); err == nil {
		opts.RenderReportTool = t.BinarySHA256
	}
	if f.key != "" {
		if opts.PublicKey, err = bundle.LoadPublicKey(ctx, f.key, func() ([]byte, error) { return readPassword(e, false) }); err != nil {
			return withHint(fmt.Errorf("export: loading the verification key: %w", err),
				"--key takes a public key file (benchseal keygen writes NAME.pub), a private key file or a KMS reference")
		}
	}
	rep, err := verify.Path(ctx, src, opts)
	var nr *verify.NotRunDirError
	switch {
	case errors.As(err, &nr):
		return withHint(fmt.Errorf("export: %s: not a run directory (no run.json)", src),
			"give a bundle (benchseal seal writes NAME.tar.zst) or the directory benchseal run wrote")
	case err != nil && ctx.Err() != nil:
		return errInterrupted
	case err != nil:
		return fmt.Errorf("export: verify %s: %w", src, err)
	}
	if !rep.OK() {
		var failed []string
		for _, c := range rep.Checks {
			if c.Status == verify.Fail || c.Status == verify.Unchecked {
				failed = append(failed, fmt.Sprintf("%d %s", c.ID, c.Name))
			}
		}
		return withHint(fmt.Errorf("export: %s does not verify (%s): nothing exported", src, strings.Join(failed, ", ")),
			"run benchseal verify %s for every finding", src)
	}
	if info.IsDir() && !verify.IsExtracted(src) {
		warnf(e.stderr, "%s is a run directory: nothing in it is signed; export a sealed bundle to publish", src)
	}
	run, cl, recs, err := readExport(ctx, src, opts.PublicKey)
	if err != nil {
		return err
	}
	export.SortRecords(run, recs)
	tables := []export.Table{export.Requests(run, recs), export.Claims(run, cl)}
	if err := writeExport(f.out, f.format, tables); err != nil {
		return err
	}
	infof(e.stderr, "exported %d requests and %d claim rows of %s to %s", len(tables[0].Rows), len(tables[1].Rows), src, f.out)
	return nil
}

// readExport reads run.json, claims.json and every records file of src
// through verify.Open (the signature and subjects checked again, so what
// is exported is what was verified).
func readExport(ctx context.Context, src string, pub crypto.PublicKey) (schemas.Run, schemas.Claims, []schemas.Record, error) {
	var (
		run  schemas.Run
		cl   schemas.Claims
		recs []schemas.Record
	)
	oo := verify.OpenOptions{
		Keep: func(name string) bool { return name == schemas.RunFile || name == schemas.ClaimsFile },
		Records: func(name string, r io.Reader) error {
			rs, err := claims.ReadRecords(name, r)
			if err != nil && !errors.Is(err, claims.ErrTruncatedLine) {
				return err
			}
			recs = append(recs, rs...)
			return nil
		},
	}
	if pub != nil {
		oo.PublicKey = pub
	}
	s, err := verify.Open(ctx, src, oo)
	if err != nil {
		return run, cl, nil, fmt.Errorf("export: %w", err)
	}
	for name, into := range map[string]any{schemas.RunFile: &run, schemas.ClaimsFile: &cl} {
		b, ok := s.Docs[name]
		if !ok {
			return run, cl, nil, fmt.Errorf("export: %s has no %s", src, name)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(into); err != nil {
			return run, cl, nil, fmt.Errorf("export: %s: %s: %w", src, name, err)
		}
	}
	return run, cl, recs, nil
}

// writeExport writes each table as DIR/NAME.FORMAT; on a failure it
// removes what it wrote (and DIR, when it made it).
func writeExport(dir, format string, tables []export.Table) (err error) {
	made := false
	if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
		made = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var written []string
	defer func() {
		if err == nil {
			return
		}
		for _, p := range written {
			os.Remove(p)
		}
		if made {
			os.Remove(dir)
		}
	}()
	for _, t := range tables {
		p := filepath.Join(dir, t.Name+"."+format)
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		written = append(written, p)
		werr := export.Write(fh, t, format)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("export: %s: %w", p, werr)
		}
	}
	return nil
}
