package peer

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
)

// The peers' files are untrusted input: no result or raw file may panic
// the checker, whatever it holds.
func FuzzSeedTTS(f *testing.F) {
	fx := seedFixture(nil)
	seeds := 0
	for _, name := range []string{"raw/conc2_rep1.jsonl", "raw/conc2_rep2.jsonl"} {
		f.Add(fx["result.json"].Data, fx[name].Data)
		seeds++
	}
	if seeds == 0 {
		f.Fatal("no seeds")
	}
	f.Fuzz(func(t *testing.T, result, raw []byte) {
		fsys := fstest.MapFS{"conc2_rep1.jsonl": {Data: raw}, "conc2_rep2.jsonl": {Data: raw}}
		rep, err := SeedTTS(bytes.NewReader(result), fsys)
		if err == nil && rep.Held+rep.Broken+rep.NotObserved == 0 && len(rep.Groups) == 0 {
			t.Fatal("a report with nothing in it")
		}
	})
}

func FuzzVLLMBench(f *testing.F) {
	f.Add([]byte(vllmFixture))
	f.Add([]byte(vllmFixture + "\n" + vllmFixture))
	f.Add([]byte(strings.Replace(vllmFixture, `"errors": [`, `"errors": [1, `, 1)))
	f.Fuzz(func(t *testing.T, in []byte) {
		VLLMBench(bytes.NewReader(in))
	})
}
