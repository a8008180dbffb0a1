package score

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// scliteBinary finds NIST sclite from Debian's sctk, which does not put it
// on PATH.
func scliteBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("sclite"); err == nil {
		return p
	}
	const deb = "/usr/lib/sctk/bin/sclite"
	if _, err := os.Stat(deb); err == nil {
		return deb
	}
	t.Skip("sclite not installed (Debian package sctk)")
	return ""
}

// runSclite writes the pairs as trn files, scores them with the real
// sclite and returns the counts of its Sum row.
func runSclite(t *testing.T, pairs []Pair, extra ...string) Counts {
	t.Helper()
	bin := scliteBinary(t)
	dir := t.TempDir()
	var ref, hyp bytes.Buffer
	for _, p := range pairs {
		fmt.Fprintf(&ref, "%s (%s)\n", p.Ref, p.ID)
		fmt.Fprintf(&hyp, "%s (%s)\n", p.Hyp, p.ID)
	}
	rf, hf := filepath.Join(dir, "ref.trn"), filepath.Join(dir, "hyp.trn")
	if err := os.WriteFile(rf, ref.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hf, hyp.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-r", rf, "trn", "-h", hf, "trn", "-i", "rm", "-o", "rsum", "stdout"}, extra...)
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("sclite: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// | Sum  |    3      6 |    4      1      1      3      5      3 |
		f := strings.Fields(strings.ReplaceAll(sc.Text(), "|", " "))
		if len(f) != 9 || f[0] != "Sum" {
			continue
		}
		n := make([]int, 8)
		for i := range n {
			if n[i], err = strconv.Atoi(f[i+1]); err != nil {
				t.Fatalf("sclite Sum row %q: %v", sc.Text(), err)
			}
		}
		c := Counts{Correct: n[2], Substitutions: n[3], Deletions: n[4], Insertions: n[5]}
		if c.RefUnits() != n[1] {
			t.Fatalf("sclite Sum row %q: C+S+D != #Wrd", sc.Text())
		}
		return c
	}
	t.Fatalf("no Sum row in sclite output:\n%s", out)
	return Counts{}
}

// randomCorpus makes n utterances over a small vocabulary with dense
// errors: every hypothesis is its reference with random substitutions,
// deletions and insertions, some are empty, some references are empty.
func randomCorpus(seed uint64, n int, vocab []string, sep string) []Pair {
	rng := rand.New(rand.NewPCG(seed, 1))
	pairs := make([]Pair, n)
	for i := range pairs {
		ref := make([]string, rng.IntN(25))
		for k := range ref {
			ref[k] = vocab[rng.IntN(len(vocab))]
		}
		var hyp []string
		switch rng.IntN(20) {
		case 0: // empty hypothesis
		case 1: // unrelated hypothesis
			for range rng.IntN(25) {
				hyp = append(hyp, vocab[rng.IntN(len(vocab))])
			}
		default:
			for _, w := range ref {
				switch x := rng.IntN(10); {
				case x == 0: // deletion
				case x == 1:
					hyp = append(hyp, vocab[rng.IntN(len(vocab))])
				case x == 2:
					hyp = append(hyp, w, vocab[rng.IntN(len(vocab))])
				default:
					hyp = append(hyp, w)
				}
			}
		}
		pairs[i] = Pair{ID: fmt.Sprintf("spk%d-utt%05d", i%7, i), Ref: strings.Join(ref, sep), Hyp: strings.Join(hyp, sep)}
	}
	return pairs
}

func TestScliteAlignerMatchesSclite(t *testing.T) {
	vocab := strings.Fields("a b c d e f the of and to")
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			pairs := randomCorpus(seed, 3000, vocab[:4+int(seed)*2], " ")
			want := runSclite(t, pairs)
			got, err := Score(pairs, Options{Normalizer: NormalizerNone, Aligner: AlignerSclite})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("sclite Sum: %v; benchseal sclite: %v", want, got.Counts)
			if got.Counts != want {
				t.Fatalf("benchseal sclite aligner %v, real sclite %v", got.Counts, want)
			}
		})
	}
}

func TestScliteAlignerMatchesScliteChinese(t *testing.T) {
	chars := []rune("我们你好中国人的是不在有了大学")
	vocab := make([]string, len(chars))
	for i, r := range chars {
		vocab[i] = string(r)
	}
	pairs := randomCorpus(7, 2000, vocab, "")
	// Embedded ASCII words, which -c NOASCII keeps whole.
	for i := 0; i < len(pairs); i += 5 {
		pairs[i].Ref = "iphone " + pairs[i].Ref + " ok"
		pairs[i].Hyp = "iphone " + pairs[i].Hyp + " okay"
	}
	want := runSclite(t, pairs, "-e", "utf-8", "-c", "NOASCII", "DH")
	got, err := Score(pairs, Options{Normalizer: NormalizerZH, Aligner: AlignerSclite})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sclite Sum: %v; benchseal sclite/zh: %v", want, got.Counts)
	if got.Counts != want {
		t.Fatalf("benchseal %v, real sclite %v", got.Counts, want)
	}
}
