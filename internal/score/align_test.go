package score

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// refAlign is the textbook dynamic programme: the full cost matrix, then a
// backtrace from the last cell with the documented preference (diagonal if
// no dearer than both others, else deletion if strictly cheaper than
// insertion, else insertion).
func refAlign(ref, hyp []string, sub, del, ins int) Counts {
	n, m := len(ref), len(hyp)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i * del
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j * ins
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			c := d[i-1][j-1]
			if ref[i-1] != hyp[j-1] {
				c += sub
			}
			d[i][j] = min(c, d[i-1][j]+del, d[i][j-1]+ins)
		}
	}
	var c Counts
	i, j := n, m
	for i > 0 || j > 0 {
		switch {
		case i == 0:
			c.Insertions++
			j--
			continue
		case j == 0:
			c.Deletions++
			i--
			continue
		}
		diag := d[i-1][j-1]
		if ref[i-1] != hyp[j-1] {
			diag += sub
		}
		dl, in := d[i-1][j]+del, d[i][j-1]+ins
		switch {
		case diag <= dl && diag <= in:
			if ref[i-1] == hyp[j-1] {
				c.Correct++
			} else {
				c.Substitutions++
			}
			i, j = i-1, j-1
		case dl < in:
			c.Deletions++
			i--
		default:
			c.Insertions++
			j--
		}
	}
	return c
}

// levenshtein is the plain unit-cost edit distance (what jiwer counts as
// S+D+I).
func levenshtein(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestAlignersMatchReferenceDP(t *testing.T) {
	pairs := randomCorpus(11, 3000, strings.Fields("a b c d e f"), " ")
	for _, name := range Aligners {
		w := alignerWeights[name]
		got, err := Score(pairs, Options{Normalizer: NormalizerNone, Aligner: name})
		if err != nil {
			t.Fatal(err)
		}
		var total Counts
		for i, p := range pairs {
			r, h := strings.Fields(p.Ref), strings.Fields(p.Hyp)
			want := refAlign(r, h, int(w.sub), int(w.del), int(w.ins))
			if got.Utterances[i].Counts != want {
				t.Fatalf("%s %s: %v, reference DP %v", name, p.ID, got.Utterances[i].Counts, want)
			}
			if name == AlignerUnit {
				if e := want.Substitutions + want.Deletions + want.Insertions; e != levenshtein(r, h) {
					t.Fatalf("unit %s: %d errors, Levenshtein %d", p.ID, e, levenshtein(r, h))
				}
			}
			total.Correct += want.Correct
			total.Substitutions += want.Substitutions
			total.Deletions += want.Deletions
			total.Insertions += want.Insertions
		}
		if got.Counts != total {
			t.Fatalf("%s corpus %v, sum of reference %v", name, got.Counts, total)
		}
		t.Logf("%s: %v WER %.4f", name, got.Counts, got.Rate)
	}
}

// sclite's weights make two substitutions (cost 8) dearer than a deletion
// and an insertion (cost 6); unit costs prefer the substitutions.
func TestUnitAndScliteDiffer(t *testing.T) {
	pairs := []Pair{{ID: "u1", Ref: "a b", Hyp: "b a"}, {ID: "u2", Ref: "x y z", Hyp: "y z w"}}
	unit, err := Score(pairs[:1], Options{Normalizer: NormalizerNone, Aligner: AlignerUnit})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Score(pairs[:1], Options{Normalizer: NormalizerNone, Aligner: AlignerSclite})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Substitutions: 2}); unit.Counts != want {
		t.Errorf("unit %v, want %v", unit.Counts, want)
	}
	if want := (Counts{Correct: 1, Deletions: 1, Insertions: 1}); sc.Counts != want {
		t.Errorf("sclite %v, want %v", sc.Counts, want)
	}
	if want := runSclite(t, pairs[:1]); sc.Counts != want {
		t.Errorf("real sclite %v, benchseal sclite %v", want, sc.Counts)
	}
}

func TestFailures(t *testing.T) {
	pairs := []Pair{
		{ID: "ok", Ref: "one two three", Hyp: "one two tree"},
		{ID: "failed", Ref: "four five", Hyp: "partial text", Failed: true},
	}
	ex, err := Score(pairs, Options{Normalizer: NormalizerNone, Aligner: AlignerUnit})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Excluded != 1 || ex.RefUnits() != 3 || ex.Substitutions != 1 || len(ex.Utterances) != 1 {
		t.Errorf("excluded: %+v", ex)
	}
	del, err := Score(pairs, Options{Normalizer: NormalizerNone, Aligner: AlignerUnit, FailuresAsDeletions: true})
	if err != nil {
		t.Fatal(err)
	}
	if del.Excluded != 0 || del.Deletions != 2 || del.Insertions != 0 || del.RefUnits() != 5 || del.Rate != 3.0/5 {
		t.Errorf("as deletions: %+v", del)
	}
}

func TestScoreErrors(t *testing.T) {
	_, err := Score(nil, Options{Normalizer: NormalizerNone, Aligner: "dtw"})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "aligner" {
		t.Errorf("bad aligner: %v", err)
	}
	_, err = Score([]Pair{{ID: "x", Ref: "ok", Hyp: "\xc3"}}, Options{Normalizer: NormalizerBasic, Aligner: AlignerUnit})
	var pe *PairError
	if !errors.As(err, &pe) || pe.ID != "x" || pe.Field != "hyp" || !errors.Is(err, ErrBadUTF8) {
		t.Errorf("bad UTF-8: %v", err)
	}
}

func TestCERUnits(t *testing.T) {
	r, err := Score([]Pair{{ID: "z", Ref: "今天天气很好", Hyp: "今天天汽很好啊"}}, Options{Normalizer: NormalizerZH, Aligner: AlignerUnit})
	if err != nil {
		t.Fatal(err)
	}
	if r.Unit != "char" || r.Counts != (Counts{Correct: 5, Substitutions: 1, Insertions: 1}) {
		t.Errorf("zh: %+v", r)
	}
}

func benchPairs(n, words int) []Pair {
	vocab := strings.Fields("the of and to a in that is was he for it with as his on be at by had are but from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people mr how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three")
	pairs := randomCorpus(5, n, vocab, " ")
	for i := range pairs {
		// exactly `words` reference words
		f := strings.Fields(pairs[i].Ref)
		for len(f) < words {
			f = append(f, vocab[(i+len(f))%len(vocab)])
		}
		pairs[i].Ref = strings.Join(f[:words], " ")
	}
	return pairs
}

func BenchmarkScore(b *testing.B) {
	pairs := benchPairs(10000, 20)
	for _, norm := range []string{NormalizerNone, NormalizerBasic, NormalizerWhisperEN} {
		for _, al := range Aligners {
			b.Run(fmt.Sprintf("10000x20/%s/%s", norm, al), func(b *testing.B) {
				for b.Loop() {
					if _, err := Score(pairs, Options{Normalizer: norm, Aligner: al}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
