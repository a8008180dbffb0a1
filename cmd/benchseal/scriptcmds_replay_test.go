package main

import (
	"context"
	"fmt"
	"os"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

// Helper commands of the sealed-replay scripts (replay --seal, compare).
func init() {
	// replayfigures BUNDLE: prints the signed replay comparison of BUNDLE's
	// statement (read with its signature unchecked: verify checks it), as
	// "verdict V, differ N" and one line per figure: "TARGET C METRIC
	// VERDICT"; fails when the statement holds none.
	scriptCmds["replayfigures"] = replayFigures
	// forgereplay MODE FROM RUNDIR OUT KEYFILE: seals RUNDIR into OUT, signed
	// with KEYFILE (password from BENCHSEAL_PASSWORD), with FROM's signed
	// replay comparison doctored as a replayer who wants "reproduced" could:
	// MODE "sealed" sets every figure's sealed value to the replayed one
	// (changes 0, all OK: consistent with the replay alone), MODE "verdicts"
	// only turns every DIFF into OK.
	scriptCmds["forgereplay"] = forgeReplay
}

func readStatement(path string) (*bundle.Statement, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := bundle.Open(f, bundle.DefaultLimits)
	if err != nil {
		return nil, err
	}
	return bundle.ParseEnvelope(b.Envelope)
}

func replayFigures(args []string) error {
	if len(args) != 1 {
		return scriptUsagef("replayfigures BUNDLE")
	}
	st, err := readStatement(args[0])
	if err != nil {
		return err
	}
	p := st.Predicate.Replay
	if p == nil {
		return fmt.Errorf("%s: the statement holds no replay comparison", args[0])
	}
	fmt.Printf("verdict %s, differ %d, of %s\n", p.Verdict, p.Differ, p.Of.BundleSHA256)
	for _, f := range p.Comparison {
		fmt.Printf("%s %d %s %s\n", f.Target, f.Concurrency, f.Metric, f.Verdict)
	}
	return nil
}

func forgeReplay(args []string) error {
	if len(args) != 5 || (args[0] != "sealed" && args[0] != "verdicts") {
		return scriptUsagef("forgereplay sealed|verdicts FROM RUNDIR OUT KEYFILE")
	}
	st, err := readStatement(args[1])
	if err != nil {
		return err
	}
	p := st.Predicate.Replay
	if p == nil {
		return fmt.Errorf("%s: the statement holds no replay comparison", args[1])
	}
	for i := range p.Comparison {
		f := &p.Comparison[i]
		if args[0] == "sealed" && f.Metric != "" && f.Replayed != nil {
			v, zero := *f.Replayed, 0.0
			f.Sealed, f.Change = &v, &zero
		}
		if f.Verdict != string(claims.Unstable) {
			// A percentile of too few requests stays UNSTABLE whatever
			// its change: a careful forger keeps what re-derives.
			f.Verdict, f.Reason = "OK", ""
		}
	}
	p.Differ, p.Verdict = 0, schemas.Reproduced
	ctx := context.Background()
	signer, err := bundle.LoadSigner(ctx, args[4], func() ([]byte, error) { return []byte(os.Getenv("BENCHSEAL_PASSWORD")), nil })
	if err != nil {
		return err
	}
	_, err = session.Seal(ctx, args[2], args[3], signer, bundle.SealOptions{Sealer: schemas.Sealer{Name: "benchseal", Version: "v0.0.0-test"}, Replay: p}, false)
	return err
}
