package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/spf13/cobra"
)

func init() { register(newReportCmd) }

func newReportCmd(e *env) *cobra.Command {
	var (
		out, format, key, lang string
		check                  bool
		compat                 string
	)
	cmd := &cobra.Command{
		Use:   "report (BUNDLE.tar.zst | RUNDIR) [-o DIR] [--format md|html] [--lang en|zh]",
		Short: "write a Markdown or HTML report with SVG charts from a bundle or run directory",
		Long: `report turns the claims of a sealed bundle (read through the hardened
bundle reader) or of a run directory into a report ready to paste into a
post: first the conclusion (for each pair of targets and level, the
throughput ratio with a bootstrap interval and a verdict in words) and the
caveats (benchseal verify's findings, failed requests, single repeats);
then throughput, RTFx and latency charts and tables, WER/CER, errors, cache
hits, telemetry, environment, the servers' own descriptions, and the
evidence: what is sealed, how to check it with benchseal and cosign, and
what it cannot show.

Without -o, the report is printed on stdout: Markdown (without charts) or, with
--format html, one self-contained HTML page with the charts inline.

With -o DIR, report writes REPORT.md, report.html, throughput.svg, latency.svg
and rtfx.svg into DIR (only REPORT.md and the charts with --format md, only
report.html with --format html). DIR must not exist or be empty: report never
overwrites a file, and a failure leaves nothing behind.

report shows the numbers of claims.json as sealed. It first runs every check
of benchseal verify (signature with --key, or with the key the bundle
carries; a bundle sealed with a key it does not carry needs --key): the
findings become the report's caveats and the checklist is shown with the
evidence. A failing verification still gives a report, whose
first line says so, and exit status 1. --verify=false skips verification;
the report then says it was not verified.

--lang zh writes the report in Chinese; the numbers and verdict rules are
the same.`,
		Args: exactArgs(1, "one bundle or run directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "md", "markdown", "html":
			default:
				return usageErrorf("--format %q: want md or html", format)
			}
			if key != "" && !check {
				return usageErrorf("--key is used only with --verify")
			}
			if err := checkCompat(compat); err != nil {
				return err
			}
			if compat != "" && out == "" && format == "html" {
				return usageErrorf("--compat prints a Markdown table on stdout: give -o DIR for the HTML report")
			}
			if !report.KnownLang(lang) {
				return usageErrorf("--lang %q: want one of %s", lang, strings.Join(report.Languages, ", "))
			}
			in, err := loadReport(e, args[0])
			if err != nil {
				return err
			}
			in.Lang = lang
			if check && key == "" && in.BundleSHA256 != "" && !in.KeyEphemeral {
				return withHint(fmt.Errorf("report: %s is signed by a key it does not carry, so the report cannot verify it without that key", args[0]),
					"pass --key KEY.pub (the public half of the key it was sealed with), or --verify=false for a report that says it was not verified")
			}
			failed := false
			if check {
				if failed, err = verifyForReport(cmd.Context(), e, args[0], key, &in); err != nil {
					return err
				}
			}
			if err := writeReport(e, in, out, format, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			if compat != "" {
				if err := printCompat(e, args[0], compat, false); err != nil {
					return err
				}
			}
			if failed {
				r := in.Verify
				return withHint(fmt.Errorf("report: %s failed verification (%d checks passed, %d warned, %d failed, %d skipped)", args[0], r.Passed, r.Warned, r.Failed, r.Skipped), "run benchseal verify %s for every finding", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the report files into `DIR` (must not exist or be empty)")
	cmd.Flags().StringVar(&format, "format", "md", "`md` or html")
	cmd.Flags().BoolVar(&check, "verify", true, "verify the bundle first and show its findings in the report (--verify=false skips it)")
	cmd.Flags().StringVar(&lang, "lang", "en", "the report's `language`: en or zh")
	cmd.Flags().StringVar(&key, "key", "", "the public `KEY` that must have signed the bundle (needed when the bundle does not carry its key)")
	compatFlag(cmd, &compat, "print the figures (a Markdown table on stdout, after the report)")
	return cmd
}

func writeReport(e *env, in report.Input, out, format string, formatSet bool) error {
	if out == "" {
		if format == "html" {
			return report.HTML(e.stdout, in)
		}
		return report.Markdown(e.stdout, in)
	}
	md, html := true, true
	if formatSet {
		md, html = format != "html", format == "html"
	}
	if err := writeReportDir(out, in, md, html); err != nil {
		return err
	}
	infof(e.stderr, "wrote report to %s", out)
	return nil
}

// verifyForReport runs benchseal verify's checks on src and records the
// verdict and checklist in in. failed says a check failed.
func verifyForReport(ctx context.Context, e *env, src, key string, in *report.Input) (failed bool, err error) {
	opts := verify.Options{}
	if key != "" {
		pub, err := bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
		if err != nil {
			return false, withHint(fmt.Errorf("loading the verification key: %w", err),
				"--key takes a public key file (benchseal keygen writes NAME.pub)")
		}
		opts.PublicKey = pub
	}
	var rep *verify.Report
	if st, err := os.Stat(src); err == nil && st.IsDir() {
		rep, err = verify.Dir(ctx, src, opts)
		if err != nil {
			return false, fmt.Errorf("verify %s: %w", src, err)
		}
	} else {
		f, err := os.Open(src)
		if err != nil {
			return false, fmt.Errorf("verify %s: %w", src, unwrapPathError(err))
		}
		defer f.Close()
		if rep, err = verify.Bundle(ctx, f, opts); err != nil {
			return false, fmt.Errorf("verify %s: %w", src, err)
		}
	}
	in.Verify = rep
	return !rep.OK(), nil
}

// Caps on what report reads of one document: far above any real run.json
// or claims.json, low enough that a hostile bundle cannot exhaust memory.
const maxReportDoc = 256 << 20

// loadReport reads a bundle or a run directory into a report.Input.
func loadReport(e *env, src string) (report.Input, error) {
	st, err := os.Stat(src)
	if err != nil {
		return report.Input{}, withHint(fmt.Errorf("report %s: %w", src, unwrapPathError(err)),
			"give a bundle made by benchseal seal or a run directory made by benchseal run")
	}
	if st.IsDir() {
		in, err := loadReportDir(e, src)
		if err == nil {
			in.Records = loadDirRecords(e, src)
		}
		return in, err
	}
	return loadReportBundle(e, src)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// reportDocs are the documents of a run, by their path in the run
// directory or bundle.
type reportDocs map[string][]byte

func loadReportDir(e *env, dir string) (report.Input, error) {
	docs := reportDocs{}
	for _, name := range []string{"run.json", "claims.json", "env/gpu.json", "env/host.json"} {
		b, err := readCappedFile(filepath.Join(dir, filepath.FromSlash(name)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return report.Input{}, fmt.Errorf("read %s: %w", filepath.Join(dir, name), unwrapPathError(err))
		}
		docs[name] = b
	}
	probes, _ := filepath.Glob(filepath.Join(dir, "servers", "*", "probes-before.json"))
	for _, p := range probes {
		b, err := readCappedFile(p)
		if err != nil {
			warnf(e.stderr, "skipped %s: %v", p, unwrapPathError(err))
			continue
		}
		rel, _ := filepath.Rel(dir, p)
		docs[filepath.ToSlash(rel)] = b
	}
	return docs.input(e, dir+string(filepath.Separator), "run directory")
}

// loadDirRecords reads a run directory's records for the conclusion's
// interval over requests (benchseal report only: the REPORT.md that run
// writes, and verify regenerates, is rendered without them). A bad file
// leaves the interval over repeats only, with a warning.
func loadDirRecords(e *env, dir string) []schemas.Record {
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*", "*.jsonl"))
	sort.Strings(files)
	var recs []schemas.Record
	for _, name := range files {
		b, err := readCappedFile(name)
		var r []schemas.Record
		if err == nil {
			r, err = claims.ReadRecords(name, bytes.NewReader(b))
		}
		if err != nil {
			warnf(e.stderr, "skipped the records of %s (the interval rests on repeats only): %v", dir, unwrapPathError(err))
			return nil
		}
		recs = append(recs, r...)
	}
	return recs
}

func readCappedFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxReportDoc+1))
	if err == nil && len(b) > maxReportDoc {
		err = fmt.Errorf("larger than %d MiB", maxReportDoc>>20)
	}
	return b, err
}

// wantedInBundle says which bundle entries the report reads.
func wantedInBundle(name string) bool {
	switch name {
	case bundle.AttestationName, "run.json", "claims.json", "env/gpu.json", "env/host.json":
		return true
	}
	dir, file := path.Split(name)
	if isRecordsFile(name) {
		return true
	}
	return file == "probes-before.json" && strings.HasPrefix(dir, "servers/") && strings.Count(dir, "/") == 2
}

// isRecordsFile says name is records/<target>/<step>.jsonl: the report
// reads the records for the conclusion's interval over requests.
func isRecordsFile(name string) bool {
	dir, file := path.Split(name)
	return strings.HasPrefix(dir, "records/") && strings.Count(dir, "/") == 2 && strings.HasSuffix(file, ".jsonl")
}

func loadReportBundle(e *env, file string) (report.Input, error) {
	f, err := os.Open(file)
	if err != nil {
		return report.Input{}, fmt.Errorf("read %s: %w", file, unwrapPathError(err))
	}
	defer f.Close()
	h := sha256.New()
	tee := io.TeeReader(f, h)
	refused := func(err error) error {
		return withHint(fmt.Errorf("read bundle %s: %w", file, err), "report reads only bundles made by benchseal seal; benchseal verify %s names every problem", file)
	}
	rd, err := bundle.NewReader(tee, bundle.DefaultLimits)
	if err != nil {
		return report.Input{}, refused(err)
	}
	defer rd.Close()
	docs := reportDocs{}
	for {
		ent, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return report.Input{}, refused(err)
		}
		if !wantedInBundle(ent.Name) {
			continue // Next drains and hashes it
		}
		if ent.Size > maxReportDoc {
			return report.Input{}, refused(&bundle.EntryError{Name: ent.Name, Reason: fmt.Errorf("%w: %d bytes, report reads at most %d", bundle.ErrTooLarge, ent.Size, int64(maxReportDoc))})
		}
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, rd); err != nil {
			return report.Input{}, refused(err)
		}
		docs[ent.Name] = buf.Bytes()
	}
	// The digest a reader checks is of the whole file, trailing bytes included.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return report.Input{}, fmt.Errorf("read %s: %w", file, err)
	}
	in, err := docs.input(e, file+": ", "bundle")
	if err != nil {
		return in, err
	}
	in.BundleSHA256 = hex.EncodeToString(h.Sum(nil))
	in.BundleName = filepath.Base(file)
	if env, ok := docs[bundle.AttestationName]; ok {
		st, err := bundle.ParseEnvelope(env)
		if err != nil {
			return report.Input{}, refused(&bundle.EntryError{Name: bundle.AttestationName, Reason: err})
		}
		in.KeyFingerprint = st.Predicate.Key.Fingerprint
		in.KeyEphemeral = st.Predicate.Key.Ephemeral
	}
	return in, nil
}

// input decodes and validates the documents. run.json and claims.json are
// required; the environment and server captures are extras, skipped with
// a warning when they are bad. prefix names where they came from.
func (docs reportDocs) input(e *env, prefix, kind string) (report.Input, error) {
	var in report.Input
	for _, req := range []struct {
		name, schema string
		v            any
	}{{"run.json", "run", &in.Run}, {"claims.json", "claims", &in.Claims}} {
		b, ok := docs[req.name]
		if !ok {
			return in, withHint(fmt.Errorf("report: %s%s: missing from the %s", prefix, req.name, kind),
				"benchseal run writes run.json and claims.json; a run interrupted before its first level has no claims")
		}
		if err := decodeDoc(req.schema, b, req.v); err != nil {
			return in, fmt.Errorf("report: %s%s: %w", prefix, req.name, err)
		}
	}
	if b, ok := docs["env/gpu.json"]; ok {
		var g schemas.GPUInfo
		if err := decodeDoc("gpu", b, &g); err != nil {
			warnf(e.stderr, "skipped %senv/gpu.json: %v", prefix, err)
		} else {
			in.GPU = &g
		}
	}
	if b, ok := docs["env/host.json"]; ok {
		var h schemas.HostInfo
		if err := decodeDoc("host", b, &h); err != nil {
			warnf(e.stderr, "skipped %senv/host.json: %v", prefix, err)
		} else {
			in.Host = &h
		}
	}
	var names []string
	for name := range docs {
		if strings.HasPrefix(name, "servers/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		var sc schemas.ServerCapture
		if isRecordsFile(name) {
			continue
		}
		if err := decodeDoc("probe", docs[name], &sc); err != nil {
			warnf(e.stderr, "skipped %s%s: %v", prefix, name, err)
			continue
		}
		in.Servers = append(in.Servers, sc)
	}
	// The records, for the interval over requests within repeats; a bad
	// file leaves the interval over repeats only, with a warning.
	var recNames []string
	for name := range docs {
		if isRecordsFile(name) {
			recNames = append(recNames, name)
		}
	}
	sort.Strings(recNames)
	var recs []schemas.Record
	for _, name := range recNames {
		r, err := claims.ReadRecords(name, bytes.NewReader(docs[name]))
		if err != nil {
			warnf(e.stderr, "skipped the records of %s%s (the interval rests on repeats only): %v", prefix, name, err)
			recs = nil
			break
		}
		recs = append(recs, r...)
	}
	in.Records = recs
	return in, nil
}

func decodeDoc(schema string, b []byte, v any) error {
	if err := schemas.Validate(schema, b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// writeReportDir writes the report files into a fresh temporary directory
// beside dir and renames it into place, so that dir either gets every file
// or none, and an existing non-empty dir is never touched.
func writeReportDir(dir string, in report.Input, md, html bool) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return withHint(fmt.Errorf("report: %s exists and is not empty", dir), "give -o a new directory; report never overwrites files")
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: %s: %w", dir, unwrapPathError(err))
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), ".benchseal-report-*")
	if err != nil {
		return fmt.Errorf("report: create %s: %w", dir, unwrapPathError(err))
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	write := func(name string, f func(io.Writer) error) error {
		fh, err := os.OpenFile(filepath.Join(tmp, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return err
		}
		return fh.Close()
	}
	if md {
		in.LinkCharts = true
		if err := write("REPORT.md", func(w io.Writer) error { return report.Markdown(w, in) }); err != nil {
			return fmt.Errorf("report: write %s: %w", filepath.Join(dir, "REPORT.md"), err)
		}
		for _, ch := range report.Charts {
			if err := write(ch.File(), func(w io.Writer) error { return report.SVG(w, in, ch) }); err != nil {
				return fmt.Errorf("report: write %s: %w", filepath.Join(dir, ch.File()), err)
			}
		}
	}
	if html {
		if err := write("report.html", func(w io.Writer) error { return report.HTML(w, in) }); err != nil {
			return fmt.Errorf("report: write %s: %w", filepath.Join(dir, "report.html"), err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("report: %s: %w", dir, err)
	}
	// os.Rename refuses an existing directory; os.Remove removes only an
	// empty one, so a dir that filled up meanwhile makes this fail rather
	// than lose files.
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: %s: %w", dir, unwrapPathError(err))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("report: create %s: %w", dir, unwrapLinkError(err))
	}
	return nil
}

func unwrapLinkError(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
