package score

import (
	"errors"
	"strings"
	"testing"
)

var transcriptVectors = []struct {
	name, in string
	want     []Transcript
	err      error
}{
	{"trn", "hello world (u1)\n\n(u2)\n", []Transcript{{"u1", "hello world"}, {"u2", ""}}, nil},
	{"trn parens in text", "a (b) c (spk-1)\n", []Transcript{{"spk-1", "a (b) c"}}, nil},
	{"jsonl", "{\"id\":\"a\",\"text\":\"x y\"}\n{\"id\":\"b\",\"text\":\"\"}\n", []Transcript{{"a", "x y"}, {"b", ""}}, nil},
	{"bom", "\uFEFFone (u1)\n", []Transcript{{"u1", "one"}}, nil},
	{"empty", "\n \n", nil, ErrEmpty},
	{"bad utf8", "ok (u1)\nb\xffd (u2)\n", nil, ErrBadUTF8},
	{"dup", "a (u1)\nb (u1)\n", nil, &DuplicateIDError{}},
	{"no id", "just words\n", nil, errors.New("")},
	{"jsonl no text", "{\"id\":\"a\"}\n", nil, errors.New("")},
}

func TestReadTranscripts(t *testing.T) {
	for _, v := range transcriptVectors {
		t.Run(v.name, func(t *testing.T) {
			got, err := ReadTranscripts(strings.NewReader(v.in), "f.trn")
			if v.err != nil {
				var fe *FileError
				if !errors.As(err, &fe) || fe.File != "f.trn" {
					t.Fatalf("err = %v, want a *FileError", err)
				}
				if errors.Is(v.err, ErrEmpty) || errors.Is(v.err, ErrBadUTF8) {
					if !errors.Is(err, v.err) {
						t.Fatalf("err = %v, want %v", err, v.err)
					}
				}
				if _, ok := v.err.(*DuplicateIDError); ok && !errors.As(err, new(*DuplicateIDError)) {
					t.Fatalf("err = %v, want *DuplicateIDError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(v.want) {
				t.Fatalf("got %v, want %v", got, v.want)
			}
			for i := range got {
				if got[i] != v.want[i] {
					t.Fatalf("got %v, want %v", got, v.want)
				}
			}
		})
	}
}

func TestPairUp(t *testing.T) {
	ref := []Transcript{{"a", "x"}, {"b", "y"}}
	if _, err := PairUp(ref, ref[:1], "ref", "hyp"); err == nil || err.(*MissingIDError).File != "hyp" {
		t.Errorf("missing in hyp: %v", err)
	}
	if _, err := PairUp(ref[:1], ref, "ref", "hyp"); err == nil || err.(*MissingIDError).File != "ref" {
		t.Errorf("missing in ref: %v", err)
	}
	p, err := PairUp(ref, []Transcript{{"b", "y2"}, {"a", "x2"}}, "ref", "hyp")
	if err != nil || p[0] != (Pair{ID: "a", Ref: "x", Hyp: "x2"}) {
		t.Errorf("pairs %v, %v", p, err)
	}
}

func FuzzReadTranscripts(f *testing.F) {
	for _, v := range transcriptVectors {
		f.Add(v.in)
	}
	if len(transcriptVectors) == 0 {
		f.Fatal("no seeds")
	}
	f.Fuzz(func(t *testing.T, in string) {
		ts, err := ReadTranscripts(strings.NewReader(in), "fuzz")
		if err != nil {
			if !errors.As(err, new(*FileError)) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, tr := range ts {
			if tr.ID == "" || seen[tr.ID] {
				t.Fatalf("bad or duplicate id %q", tr.ID)
			}
			seen[tr.ID] = true
		}
		pairs, err := PairUp(ts, ts, "r", "h")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Score(pairs, Options{Normalizer: NormalizerWhisperEN, Aligner: AlignerSclite})
		if err != nil {
			t.Fatal(err)
		}
		if r.Substitutions+r.Deletions+r.Insertions != 0 {
			t.Fatalf("identical texts scored %v", r.Counts)
		}
	})
}
