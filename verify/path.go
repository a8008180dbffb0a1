package verify

import (
	"context"
	"os"
)

// Path verifies path: a run directory (Dir) or a bundle file (Bundle). A
// file that cannot be opened is its open error without the path, which
// the caller names.
func Path(ctx context.Context, path string, opts Options) (*Report, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Dir(ctx, path, opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	return Bundle(ctx, f, opts)
}
