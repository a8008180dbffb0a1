package bundle_test

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
)

// Seal packs a finished run directory into one archive whose first entry
// signs every other file; the statement lists each with its SHA-256.
func ExampleSeal() {
	dir, err := os.MkdirTemp("", "example-seal-")
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
	signer, err := bundle.NewSigner(key)
	if err != nil {
		panic(err)
	}

	var out bytes.Buffer
	res, err := bundle.Seal(ctx, &out, runDir, signer, bundle.SealOptions{Sealer: schemas.Sealer{Name: "example", Version: "v0"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("ephemeral key:", res.Ephemeral)
	fmt.Println("bytes written:", res.Size == int64(out.Len()))
	for _, s := range res.Statement.Subject {
		if s.Name == "run.json" || s.Name == "claims.json" || s.Name == "records/a/c1-r1.jsonl" {
			fmt.Println("subject:", s.Name)
		}
	}
	// Output:
	// ephemeral key: false
	// bytes written: true
	// subject: claims.json
	// subject: records/a/c1-r1.jsonl
	// subject: run.json
}
