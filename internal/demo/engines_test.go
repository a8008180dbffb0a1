package demo

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// Setup serves every engine of the table on loopback and stop shuts them
// all down.
func TestSetup(t *testing.T) {
	sims, stop, err := Setup(filepath.Join(t.TempDir(), "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sims) != len(Engines) {
		t.Fatalf("%d simulators, want %d", len(sims), len(Engines))
	}
	for i, s := range sims {
		resp, err := http.Get(s.URL + "/v1/models")
		if err != nil || resp.StatusCode != http.StatusOK || s.Name != Engines[i].Name {
			t.Fatalf("%s at %s: %v %v", s.Name, s.URL, resp, err)
		}
		resp.Body.Close()
	}
	stop()
	for _, s := range sims {
		if _, err := http.Get(s.URL + "/v1/models"); err == nil {
			t.Errorf("%s still serves after stop", s.Name)
		}
	}
}

func TestFreeDir(t *testing.T) {
	base := filepath.Join(t.TempDir(), "d")
	if got := FreeDir(base); got != base {
		t.Errorf("FreeDir = %s, want %s", got, base)
	}
	for _, d := range []string{base, base + "-2"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := FreeDir(base); got != base+"-3" {
		t.Errorf("FreeDir = %s, want %s-3", got, base)
	}
}
