package perturb

import (
	"io"
	"testing"
)

// TestSpliceAllocatesNothing: building and streaming a request body shares
// the clip; the count does not depend on the clip's size (it is 0).
func TestSpliceAllocatesNothing(t *testing.T) {
	w, err := Parse("a.wav", build(spec{tag: 1, channels: 1, container: 16, rate: 16000, samples: make([]uint64, 50000)}).file)
	if err != nil {
		t.Fatal(err)
	}
	v, err := w.Variant(123)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() { w.Splice(v).WriteTo(io.Discard) }); n != 0 {
		t.Errorf("Splice+WriteTo allocates %v times per body", n)
	}
	if n := testing.AllocsPerRun(20, func() { io.Copy(io.Discard, w.Splice(v).Reader()) }); n > 1 {
		t.Errorf("Reader+io.Copy allocates %v times per body, want at most the reader itself", n)
	}
}
