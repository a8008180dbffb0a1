package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
	"github.com/spf13/cobra"
)

func init() { register(newReportCmd) }

func newReportCmd(e *env) *cobra.Command {
	var (
		out, format, key, lang, minEffect string
		tsaCert                           string
		check                             bool
		compat                            string
		with                              []string
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

With -o DIR, report writes REPORT.md, SUMMARY.md (at most 250 words to paste:
the verdicts, the caveats that change one, the bundle's SHA-256 and signer, the
verify command), report.html, throughput.svg, latency.svg and rtfx.svg into
DIR, and stages.svg where claims.json carries the servers' stage histograms
(only REPORT.md, SUMMARY.md and the charts with --format md, only report.html
with --format html). DIR must not exist or be empty: report never
overwrites a file, and a failure leaves nothing behind.

Where the run sealed the servers' per-request stage times (run --otlp-listen,
--server-events or --launch), "Where the time goes" joins them to the
records by request id for exact p50/p95 per stage; otherwise its
percentiles come from the servers' histograms.

report shows the numbers of claims.json as sealed. It first runs every check
of benchseal verify (signature with --key, or with the key the bundle
carries; a bundle sealed with a key it does not carry needs --key): the
findings become the report's caveats and the checklist is shown with the
evidence. A failing verification still gives a report, whose
first line says so, and exit status 1. --verify=false skips verification;
the report then says it was not verified.

--min-effect sets the smallest lead the conclusion names (default 5%, the
drift measured between runs of the same setup; internal/verdict says why): a
lead of at most it is "within noise (±5 %)". The REPORT.md that run seals
uses the default.

--with OTHER (repeatable) names a repeated run of the same setup (same
protocol and targets; a bundle or a run directory; a bundle is verified with the key and time-stamp certificates
it carries): the drift of each target's median throughput between the runs,
at every level at steady state in both, is measured, and where it exceeds
the minimum effect it is the noise bound instead; the rule says which bound
applied and the drift it measured.

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
				return withHint(usageErrorf("--key is used only with --verify"), "drop --verify=false to check the bundle against the key, or drop --key to report without verifying")
			}
			if tsaCert != "" && !check {
				return withHint(usageErrorf("--tsa-cert is used only with --verify"), "drop --verify=false to check the time-stamps against the chain, or drop --tsa-cert to report without verifying")
			}
			if st, err := os.Stat(args[0]); err == nil && st.IsDir() && key != "" && !verify.IsExtracted(args[0]) {
				return keyUnusedError(args[0])
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
			effect, err := parsePercent("--min-effect", minEffect)
			if err != nil {
				return err
			}
			in, err := loadReport(e, args[0])
			if err != nil {
				return err
			}
			in.Lang = lang
			in.MinEffect = effect
			if effect == 0 {
				in.MinEffect = -1 // none: any lead beyond the interval and the repeats
			}
			if check && key == "" && in.BundleSHA256 != "" && !in.KeyEphemeral {
				return withHint(fmt.Errorf("report: %s is signed by a key it does not carry, so the report cannot verify it without that key", args[0]),
					"pass --key KEY.pub (the public half of the key it was sealed with), or --verify=false for a report that says it was not verified")
			}
			failed := false
			if check {
				if failed, err = verifyForReport(cmd.Context(), e, args[0], key, tsaCert, &in); err != nil {
					return err
				}
			}
			if len(with) > 0 {
				if in.Drift, err = measureDrift(cmd.Context(), e, args[0], in, with, check); err != nil {
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
	cmd.Flags().StringVar(&minEffect, "min-effect", "5%", "the smallest lead the conclusion names; a lead of at most this is \"within noise\", e.g. 5%")
	cmd.Flags().StringVar(&key, "key", "", "the public `KEY` that must have signed the bundle (needed when the bundle does not carry its key)")
	cmd.Flags().StringVar(&tsaCert, "tsa-cert", "", "the time-stamping authority's certificate chain (PEM) a pre-registered run's tokens must chain to")
	cmd.Flags().StringArrayVar(&with, "with", nil, "a repeated run of the same setup, `OTHER` (bundle or run directory; repeatable): the drift between the runs widens the noise bound")
	compatFlag(cmd, &compat, "print the figures (a Markdown table on stdout, after the report)")
	return cmd
}

// measureDrift loads the runs of --with (each verified when check, with
// the key and time-stamp certificates it carries) and measures their
// drift from in.
func measureDrift(ctx context.Context, e *env, src string, in report.Input, with []string, check bool) (*report.Drift, error) {
	var others []report.Input
	for _, w := range with {
		o, err := loadReport(e, w)
		if err != nil {
			return nil, err
		}
		if check {
			failed, err := verifyForReport(ctx, e, w, "", "", &o)
			if err != nil {
				return nil, err
			}
			if failed {
				return nil, withHint(fmt.Errorf("report: --with %s failed verification", w), "run benchseal verify %s for every finding", w)
			}
		}
		others = append(others, o)
	}
	d, err := report.MeasureDrift(in, others)
	if err != nil {
		return nil, withHint(fmt.Errorf("report: --with: %w", err), "--with takes repeated runs of this run's setup: the same protocol and targets")
	}
	infof(e.stderr, "drift between %s and %d other run(s): up to %.1f %% (%s at C = %d)", src, d.Runs, 100*d.Max, d.Target, d.Level)
	return d, nil
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
	err := report.WriteDir(out, in, md, html)
	var ne *report.NotEmptyError
	if errors.As(err, &ne) {
		return withHint(fmt.Errorf("report: %w", err), "give -o a new directory; report never overwrites files")
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	infof(e.stderr, "wrote report to %s", out)
	return nil
}

// verifyForReport runs benchseal verify's checks on src and records the
// verdict and checklist in in. failed says a check failed.
func verifyForReport(ctx context.Context, e *env, src, key, tsaCert string, in *report.Input) (failed bool, err error) {
	// The same renderer as benchseal verify's, so that the sealed REPORT.md
	// is checked here too rather than "not observed".
	opts := verify.Options{RenderReport: renderRunReport, RenderReportRules: report.RulesVersion}
	if opts.TSAChain, err = loadTSAChain(tsaCert); err != nil {
		return false, err
	}
	if t, err := fingerprint.Tool(); err == nil {
		opts.RenderReportTool = t.BinarySHA256
	}
	if key != "" {
		pub, err := bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
		if err != nil {
			return false, withHint(fmt.Errorf("loading the verification key: %w", err),
				"--key takes a public key file (benchseal keygen writes NAME.pub)")
		}
		opts.PublicKey = pub
	}
	rep, err := verify.Path(ctx, src, opts)
	if err != nil {
		return false, fmt.Errorf("verify %s: %w", src, err)
	}
	in.Verify = rep
	return !rep.OK(), nil
}

// loadReport reads a bundle or a run directory into a report.Input.
func loadReport(e *env, src string) (report.Input, error) {
	st, err := os.Stat(src)
	if err != nil {
		return report.Input{}, withHint(fmt.Errorf("report %s: %w", src, unwrapPathError(err)),
			"give a bundle made by benchseal seal or a run directory made by benchseal run")
	}
	if st.IsDir() {
		return loadReportDir(e, src)
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

// reportOpen reads the report's documents of src. The bundle's signature
// is not checked here: report runs verify's whole checklist instead.
func reportOpen(src string) (*verify.Source, error) {
	return verify.Open(context.Background(), src, verify.OpenOptions{Keep: report.Keeps, Optional: schemas.IsProbesBefore, Unsigned: true})
}

func loadReportDir(e *env, dir string) (report.Input, error) {
	s, err := reportOpen(dir)
	var rd *verify.ReadError
	if errors.As(err, &rd) {
		return report.Input{}, fmt.Errorf("read %s: %w", rd.Path, rd.Err)
	}
	if err != nil {
		return report.Input{}, fmt.Errorf("read %s: %w", dir, err)
	}
	for _, err := range s.Skipped {
		var rd *verify.ReadError
		errors.As(err, &rd)
		warnf(e.stderr, "skipped %s: %v", rd.Path, rd.Err)
	}
	return reportDocs(s.Docs).input(e, dir+string(filepath.Separator), "run directory")
}

func loadReportBundle(e *env, file string) (report.Input, error) {
	s, err := reportOpen(file)
	var (
		re *verify.RefusedError
		rd *verify.ReadError
	)
	switch {
	case errors.As(err, &re):
		return report.Input{}, withHint(fmt.Errorf("read bundle %s: %w", file, re.Err), "report reads only bundles made by benchseal seal; benchseal verify %s names every problem", file)
	case errors.As(err, &rd):
		return report.Input{}, fmt.Errorf("read %s: %w", file, rd.Err)
	case err != nil:
		return report.Input{}, fmt.Errorf("read %s: %w", file, err)
	}
	in, err := reportDocs(s.Docs).input(e, file+": ", "bundle")
	if err != nil {
		return in, err
	}
	in.BundleSHA256 = s.SHA256
	in.BundleName = filepath.Base(file)
	if in.KeyFingerprint, in.KeyEphemeral, err = s.ClaimedKey(); errors.As(err, &re) {
		return report.Input{}, withHint(fmt.Errorf("read bundle %s: %w", file, re.Err), "report reads only bundles made by benchseal seal; benchseal verify %s names every problem", file)
	}
	return in, nil
}

// input decodes and validates the documents (report.FromDocs); prefix
// names where they came from, kind what it is.
func (docs reportDocs) input(e *env, prefix, kind string) (report.Input, error) {
	in, err := report.FromDocs(docs, func(name string, err error) { warnf(e.stderr, "skipped %s%s: %v", prefix, name, err) })
	var de *report.DocError
	if errors.As(err, &de) && de.Err == nil {
		return in, withHint(fmt.Errorf("report: %s%s: missing from the %s", prefix, de.Name, kind),
			"benchseal run writes run.json and claims.json; a run interrupted before its first level has no claims")
	}
	if err != nil {
		return in, fmt.Errorf("report: %s%w", prefix, err)
	}
	// The records, for the interval over requests within repeats; a bad
	// file leaves the interval over repeats only, with a warning.
	recs, bad, err := report.Records(docs)
	if err != nil {
		warnf(e.stderr, "skipped the records of %s%s (the interval rests on repeats only): %v", prefix, bad, err)
	}
	in.Records = recs
	// The servers' per-request stage times, joined to those records for
	// "Where the time goes"; a bad file leaves the histograms' percentiles.
	st, bad, err := report.RequestStages(docs)
	if err != nil {
		warnf(e.stderr, "skipped the per-request stage times of %s%s (the percentiles come from the histograms): %v", prefix, bad, err)
	}
	in.Stages = st
	return in, nil
}

func decodeDoc(schema string, b []byte, v any) error { return schemas.Decode(schema, b, v) }
