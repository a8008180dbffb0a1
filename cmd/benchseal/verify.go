package main

import (
	"bytes"
	"crypto"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/verify"
	"github.com/spf13/cobra"
)

func init() { register(newVerifyCmd) }

// kindFlags name, after a finding of the kind, the flag that provides
// what it misses: the library words the finding, only the CLI names its
// flags.
var kindFlags = map[verify.Kind]string{
	verify.KindUnpinned:        "pass --key",
	verify.KindAudioMissing:    "pass --audio DIR with the original clips",
	verify.KindGPUsUnassigned:  "run names them with --gpu NAME=0,1",
	verify.KindGPUNotObserved:  "run names each target's GPUs with --gpu NAME=0,1, on the host that serves it",
	verify.KindKnobNotObserved: "run takes SGLang-Omni's launch command with --launch or --launch-cmd, its config with --server-config",
	verify.KindNoPerturb:       "run again without --no-perturb",
	verify.KindIncomplete:      "seal --allow-incomplete",
	verify.KindTSAUnpinned:     "pass --tsa-cert with the authority's chain, from the authority itself",
	verify.KindLogUnpinned:     "pass --log-key with the log's public key, from the log itself",
	// run's server events: vLLM's spans, SGLang-Omni's profiler (run --help)
	verify.KindEventsNotObserved: "run with --otlp-listen ADDR and vLLM's --otlp-traces-endpoint http://ADDR, or --server-events NAME=DIR (or --launch) and --stream for SGLang-Omni",
}

// checkFlags name the flag a failing check's hint is about.
var checkFlags = map[int]string{verify.CheckSignature: "--key"}

// checkHint is what to do about a failing check: the finding's own hint
// when the CLI has a better one, else the check's, with its flag.
func checkHint(c verify.Check) string {
	if hint, ok := findingHint(c); ok {
		return hint
	}
	hint := c.Hint()
	if hint == "" {
		return "see docs/verify.md"
	}
	if f, ok := checkFlags[c.ID]; ok {
		return hint + " (" + f + ")"
	}
	return hint
}

// verifyLong is verify's --help, its list of checks generated from
// verify.Checklist.
func verifyLong() string {
	var b strings.Builder
	b.WriteString(`verify reads a bundle made by benchseal seal and runs every check of the checklist,
collecting every problem before it answers:

`)
	width := 0
	for _, k := range verify.Checklist() {
		width = max(width, len(k.Name))
	}
	for _, k := range verify.Checklist() {
		indent := fmt.Sprintf(" %2d %-*s  ", k.ID, width, k.Name)
		line := indent
		for i, w := range strings.Fields(k.Help) {
			if i > 0 && len(line)+1+len(w) > 84 {
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", len(indent)) + w
				continue
			}
			if i > 0 {
				line += " "
			}
			line += w
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(`
Each check prints PASS, WARN, FAIL, SKIP or UNCHECKED with a reason, and its findings
below it; what the run did not record is "not observed" in the check's line, never a
pass. A damaged or unsafe archive fails check 1 and skips the rest. Exit status 1
when a check FAILs or is UNCHECKED (it applies but could not run: a signature
that was not checked proves nothing), 0 otherwise (WARNs included).
Given a run directory (not yet sealed), checks 1-3 are SKIP, and --key is a usage
error (exit status 2: nothing in it is signed). A folder holding attestation.dsse.json
is a bundle extracted with tar --zstd -xf: it is verified as that bundle (checks 2 and
3 hold every file on disk to the signed statement; check 1 has no archive). Without --key, check 2
uses the key the bundle carries (WARN unpinned); a bundle that carries none needs
--key NAME.pub. A bundle sealed with --no-audio cannot re-derive its variants nor
check its clips' lengths, on which RTFx rests (check 5 WARN), unless --audio DIR
holds the original clips, matched by SHA-256. --key is a public key file, a private
key file (its password from BENCHSEAL_PASSWORD or COSIGN_PASSWORD; verify warns that
a reader needs only its public half, NAME.pub) or a KMS reference. With --json, each
finding carries a "kind" (need-key, unpinned-signer, digest, schema, variant, claim,
audio-missing, ... or its check's name) to act on without parsing its words.
A bundle sealed by replay --seal signs its comparison with the run it re-ran: check 6
holds it to the replay's claims and, with --original BUNDLE (the bundle it names by
SHA-256), recomputes it from both sides' claims; without --original the original's
figures are "not observed". An --original that is not the bundle the replay names
is refused before any check runs (exit status 2).`)
	return b.String()
}

// findingHint is a hint for a finding whose cause the CLI words better
// than the check's hint: the library says what is wrong, the CLI names
// the flag that fixes it.
func findingHint(c verify.Check) (string, bool) {
	for _, f := range c.Findings {
		switch {
		case errors.Is(f.Err, verify.ErrNeedKey):
			return "not checked: this bundle needs its sealer's public key (--key NAME.pub)", true
		case errors.Is(f.Err, verify.ErrOtherKey):
			return "pass the public key of whoever sealed the bundle with --key (the statement names the key that signed)", true
		case errors.Is(f.Err, verify.ErrNotBenchseal):
			return "the attestation is not benchseal's: this is not a benchseal bundle", true
		case c.ID == verify.CheckArchive && errors.Is(f.Err, bundle.ErrEmpty):
			return "the file is empty: fetch the bundle again from its source", true
		}
	}
	return "", false
}

func newVerifyCmd(e *env) *cobra.Command {
	var (
		key, audio string
		original   string
		tsaCert    string
		logKey     string
		asJSON     bool
		compat     string
	)
	cmd := &cobra.Command{
		Use:   "verify BUNDLE|RUNDIR",
		Short: "check a sealed bundle (or a run directory) and print the checklist",
		Long:  verifyLong(),
		Example: `  benchseal verify evidence.tar.zst --key benchseal.pub
  benchseal verify evidence.tar.zst --json | jq '.checks[] | select(.status == "FAIL")'
  benchseal verify runs/qwen3-asr`,
		Args: exactArgs(1, "one bundle or run directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			src := args[0]
			if err := checkCompat(compat); err != nil {
				return err
			}
			info, err := os.Stat(src)
			if err != nil {
				return fmt.Errorf("reading %s: %w", src, unwrapPath(err))
			}
			if key != "" && info.IsDir() && !verify.IsExtracted(src) {
				return keyUnusedError(src)
			}
			if audio != "" {
				if st, err := os.Stat(audio); err != nil || !st.IsDir() {
					return usageErrorf("--audio %s: not a directory", audio)
				}
			}
			if original != "" {
				if st, err := os.Stat(original); err != nil || st.IsDir() {
					return usageErrorf("--original %s: not a bundle file", original)
				}
			}
			opts := verify.Options{AudioDir: audio, RenderReport: renderRunReport, RenderReportRules: report.RulesVersion, Original: original}
			if opts.TSAChain, err = loadTSAChain(tsaCert); err != nil {
				return err
			}
			if logKey != "" {
				if opts.LogKey, err = os.ReadFile(logKey); err != nil {
					return usageErrorf("--log-key: %v", err)
				}
			}
			if t, err := fingerprint.Tool(); err == nil {
				opts.RenderReportTool = t.BinarySHA256
			}
			if key != "" {
				if isPrivateKeyFile(key) {
					pub := "NAME.pub, as benchseal keygen writes it"
					if strings.HasSuffix(key, ".key") {
						pub = strings.TrimSuffix(key, ".key") + ".pub"
					}
					warnf(e.stderr, "--key %s is a private key: verifying needs only its public half (%s); give readers that, never the private key", key, pub)
				}
				var pub crypto.PublicKey
				pub, err = bundle.LoadPublicKey(ctx, key, func() ([]byte, error) { return readPassword(e, false) })
				if err != nil {
					return withHint(fmt.Errorf("loading the verification key: %w", err),
						"--key takes a public key file (benchseal keygen writes NAME.pub), a private key file or a KMS reference")
				}
				opts.PublicKey = pub
			}
			line := newStageLine(e, "verifying", 0)
			defer line.Close()
			opts.Progress = line.Stage
			var rep *verify.Report
			if info.IsDir() {
				rep, err = verify.Dir(ctx, src, opts)
				var nr *verify.NotRunDirError
				if errors.As(err, &nr) {
					return withHint(fmt.Errorf("%s: not a run directory (no run.json)", src),
						"give a bundle (benchseal seal writes NAME.tar.zst) or the directory benchseal run wrote")
				}
			} else {
				var f *os.File
				if f, err = os.Open(src); err != nil {
					return fmt.Errorf("reading %s: %w", src, unwrapPath(err))
				}
				defer f.Close()
				rep, err = verify.Bundle(ctx, f, opts)
			}
			line.Close() // before the checklist or the error is printed
			var oe *verify.OriginalError
			if errors.As(err, &oe) {
				return withHint(usageErrorf("--original %v", oe),
					"give the bundle the replay re-ran (it was given as %s), or verify without --original", oe.Source)
			}
			if err != nil {
				if ctx.Err() != nil {
					return errInterrupted
				}
				return fmt.Errorf("verifying %s: %w", src, err)
			}
			rep.Source = src
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := printChecklist(e.stdout, rep); err != nil {
				return err
			}
			if compat != "" {
				if err := printCompat(e, src, compat, asJSON); err != nil {
					return err
				}
			}
			for _, c := range rep.Checks {
				if c.Status == verify.Fail || c.Status == verify.Unchecked {
					hint := checkHint(c)
					fmt.Fprintf(e.stderr, "benchseal: hint: %d %s: %s\n", c.ID, c.Name, hint)
				}
			}
			if !rep.OK() {
				return &exitError{exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "public key (file or KMS reference) the bundle must be signed with")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checklist as JSON")
	cmd.Flags().StringVar(&audio, "audio", "", "folder of the original clips, for a bundle sealed with --no-audio")
	cmd.Flags().StringVar(&tsaCert, "tsa-cert", "", "the time-stamping authority's certificate chain (PEM) a pre-registered run's tokens must chain to (check 11; default: the chain the run sealed, unpinned)")
	cmd.Flags().StringVar(&logKey, "log-key", "", "the transparency log's public key (PEM) a pre-registered plan's entry must verify with (check 11; default: the key the run sealed, unpinned)")
	cmd.Flags().StringVar(&original, "original", "", "the bundle a sealed replay re-ran: check 6 recomputes the replay's signed comparison from both sides")
	compatFlag(cmd, &compat, "print the figures (after the checklist; with --json, a second JSON document)")
	return cmd
}

// keyUnusedError: --key was given for a run directory, which signs
// nothing, so no key can be checked against it. A key given is a reader
// asking who sealed the evidence; passing it unchecked would answer that
// it was checked (exit status 2, for verify, report and replay alike).
func keyUnusedError(src string) error {
	return withHint(usageErrorf("--key: %s is a run directory: nothing in it is signed, so no key can be checked", src),
		"verify the sealed bundle (NAME.tar.zst, or the folder it was extracted into, which holds attestation.dsse.json) with --key, or drop --key to check the run directory unsigned")
}

// isPrivateKeyFile reports whether ref is a key file whose PEM block is a
// private key. Only the block's type is looked at; the key itself is
// never shown.
func isPrivateKeyFile(ref string) bool {
	if bundle.IsKMSRef(ref) {
		return false
	}
	f, err := os.Open(ref)
	if err != nil {
		return false // LoadPublicKey says why
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return false
	}
	block, _ := pem.Decode(raw)
	return block != nil && strings.Contains(block.Type, "PRIVATE KEY")
}

// printChecklist writes one aligned line per check, its findings indented
// below it, and a summary line.
func printChecklist(w io.Writer, rep *verify.Report) error {
	width := 0
	for _, c := range rep.Checks {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	for _, c := range rep.Checks {
		fmt.Fprintf(&b, "%s %2d %-*s  %s\n", c.Status, c.ID, width, c.Name, oneLine(c.Summary))
		for _, f := range c.Findings {
			line := oneLine(f.String())
			if flag, ok := kindFlags[f.Kind]; ok {
				line += " (" + flag + ")"
			}
			fmt.Fprintf(&b, "        %s %s\n", f.Status, line)
		}
		if c.Omitted > 0 {
			fmt.Fprintf(&b, "        ... and %d more\n", c.Omitted)
		}
	}
	verdict := "verifies"
	if !rep.OK() {
		verdict = "does NOT verify"
	}
	unchecked := ""
	if rep.Unchecked > 0 {
		unchecked = fmt.Sprintf(", %d unchecked", rep.Unchecked)
	}
	fmt.Fprintf(&b, "%d passed, %s, %d failed%s, %d skipped: %s %s\n",
		rep.Passed, plural(rep.Warned, "warning"), rep.Failed, unchecked, rep.Skipped, rep.Source, verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oneLine keeps a finding on its line: validator messages span several.
// It also escapes control and format characters: a finding quotes what a
// bundle holds (a record's target, a clip id), and a terminal escape or a
// bidi override there could hide a FAIL or the verdict from the reader.
func oneLine(s string) string {
	return visible(strings.Join(strings.Fields(s), " "))
}

func visible(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hidden(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func hidden(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// unwrapPath drops the operation and path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// renderRunReport renders REPORT.md from a run's documents exactly as
// benchseal run writes it into the run directory (writeRunReport), so
// that verify's check 6 can hold the sealed REPORT.md to the sealed data.
func renderRunReport(docs map[string][]byte) ([]byte, error) {
	in, err := reportDocs(docs).input(&env{stderr: io.Discard}, "", "bundle")
	if err != nil {
		return nil, err
	}
	// REPORT.md's conclusion rests on claims.json alone (its interval over
	// repeats); benchseal report adds the records' interval over requests.
	in.Records = nil
	var b bytes.Buffer
	err = report.Markdown(&b, in)
	return b.Bytes(), err
}
