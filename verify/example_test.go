package verify_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/testkit/testrun"
	"github.com/benchseal/benchseal/schemas"
	"github.com/benchseal/benchseal/verify"
)

// A bundle sealed with a key is verified with that key's public half
// (pinned): the checklist says PASS, WARN (true, but proves less: this
// run captured no GPU facts, and its C=3 level of 4 requests never reached
// steady state) or FAIL for each check, with its findings.
func ExampleBundle() {
	dir, err := os.MkdirTemp("", "example-verify-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	runDir := filepath.Join(dir, "run")
	if err := testrun.Write(ctx, filepath.Join(dir, "corpus"), runDir, testrun.Small); err != nil {
		panic(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	signer, _ := bundle.NewSigner(key)
	var sealed bytes.Buffer
	if _, err := bundle.Seal(ctx, &sealed, runDir, signer, bundle.SealOptions{Sealer: schemas.Sealer{Name: "example", Version: "v0"}}); err != nil {
		panic(err)
	}

	rep, err := verify.Bundle(ctx, &sealed, verify.Options{PublicKey: key.Public()})
	if err != nil {
		panic(err) // only for what prevents verifying at all
	}
	for _, c := range rep.Checks {
		fmt.Println(c.Status, c.ID, c.Name)
	}
	fmt.Println("pinned:", rep.Pinned, "ok:", rep.OK())
	// Output:
	// PASS 1 archive
	// PASS 2 signature
	// PASS 3 subjects
	// PASS 4 schemas
	// PASS 5 variants
	// PASS 6 claims
	// WARN 7 protocol
	// WARN 8 fairness
	// SKIP 9 server
	// SKIP 10 events
	// SKIP 11 timestamp
	// pinned: true ok: true
}
