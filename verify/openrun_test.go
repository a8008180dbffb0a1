package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/verify"
)

// OpenRun gives a bundle's run.json and records exactly as the run
// directory it sealed, and refuses a bundle whose signature the given key
// did not make.
func TestOpenRun(t *testing.T) {
	ctx := context.Background()
	s := testSigner(t)
	dir := goodDir(t)
	file := filepath.Join(t.TempDir(), "b.tar.zst")
	must(t, os.WriteFile(file, seal(t, dir, s, bundle.SealOptions{}), 0o644))

	d, err := verify.OpenRun(ctx, dir, verify.OpenOptions{})
	must(t, err)
	b, err := verify.OpenRun(ctx, file, verify.OpenOptions{PublicKey: s.PublicKey()})
	must(t, err)
	if len(d.Records) == 0 || !reflect.DeepEqual(d.Records, b.Records) || !reflect.DeepEqual(d.Run, b.Run) {
		t.Errorf("bundle: %d records, run dir: %d; or run.json differs", len(b.Records), len(d.Records))
	}
	if d.Source != nil || b.Source == nil || !b.Source.KeyPinned {
		t.Errorf("Source: dir %v, bundle %v", d.Source, b.Source)
	}

	other := testSigner(t)
	_, err = verify.OpenRun(ctx, file, verify.OpenOptions{PublicKey: other.PublicKey()})
	var re *verify.RefusedError
	if !errors.As(err, &re) || !re.Signature {
		t.Errorf("another key: err = %v, want a *RefusedError on the signature", err)
	}
	_, err = verify.OpenRun(ctx, filepath.Join(dir, "nope"), verify.OpenOptions{})
	var rd *verify.ReadError
	if !errors.As(err, &rd) || !errors.Is(err, os.ErrNotExist) || rd.Error() != filepath.Join(dir, "nope")+": no such file or directory" {
		t.Errorf("missing path: err = %v, want *ReadError naming the path once", err)
	}
}
