package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/verify"
)

// Path verifies a run directory as Dir and a bundle file as Bundle does,
// and gives a missing path's error without the path.
func TestPath(t *testing.T) {
	ctx := context.Background()
	s := testSigner(t)
	dir := goodDir(t)
	file := filepath.Join(t.TempDir(), "b.tar.zst")
	must(t, os.WriteFile(file, seal(t, dir, s, bundle.SealOptions{}), 0o644))
	opts := verify.Options{PublicKey: s.PublicKey()}

	d, err := verify.Path(ctx, dir, opts)
	must(t, err)
	if d.Kind != "run directory" || !d.OK() {
		t.Errorf("run directory: kind %q, ok %v", d.Kind, d.OK())
	}
	b, err := verify.Path(ctx, file, opts)
	must(t, err)
	if b.Kind == "run directory" || !b.OK() {
		t.Errorf("bundle: kind %q, ok %v", b.Kind, b.OK())
	}
	_, err = verify.Path(ctx, filepath.Join(dir, "nope"), opts)
	if !errors.Is(err, os.ErrNotExist) || err.Error() != "no such file or directory" {
		t.Errorf("missing path: err = %v, want the open error without the path", err)
	}
}
