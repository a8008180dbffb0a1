package score

import (
	"errors"
	"strings"
	"testing"
)

func TestOptionsCheck(t *testing.T) {
	if err := (Options{Normalizer: NormalizerWhisperEN, Aligner: AlignerSclite}).Check(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Normalizer: "klingon", Aligner: AlignerUnit}, {Normalizer: "none", Aligner: "dtw"}} {
		var oe *OptionError
		if err := o.Check(); !errors.As(err, &oe) {
			t.Errorf("%+v: err = %v, want *OptionError", o, err)
		}
	}
}

func TestReportTable(t *testing.T) {
	o := Options{Normalizer: "none", Aligner: AlignerUnit, FailuresAsDeletions: true}
	res, err := Score([]Pair{{ID: "u1", Ref: "a b c", Hyp: "a x c d"}, {ID: "u2", Ref: "e f", Failed: true}}, o)
	if err != nil {
		t.Fatal(err)
	}
	rep := NewReport(res, o, true)
	rep.Target = "t"
	if rep.RefWords != 5 || rep.Subs != 1 || rep.Ins != 1 || rep.Dels != 2 || rep.Failures != FailuresDeletions || len(rep.PerUtt) != 2 {
		t.Fatalf("report %+v", rep)
	}
	var b strings.Builder
	if err := WriteTable(&b, []Report{rep, {Unit: "word"}}, true); err != nil {
		t.Fatal(err)
	}
	want := "target         utts    words  correct     subs     dels      ins excluded      WER\n" +
		"t                 2        5        2        1        2        1        0   80.00%\n" +
		"-                 0        0        0        0        0        0        0    0.00%\n" +
		"t\tu1\tref=3 C=2 S=1 D=0 I=1\t0.6667\n" +
		"t\tu2\tref=2 C=0 S=0 D=2 I=0\t1.0000\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestNormalizeLines(t *testing.T) {
	var b strings.Builder
	if err := NormalizeLines("basic", strings.NewReader("Hello, World!\nA  b\n"), &b); err != nil || b.String() != "hello world\na b\n" {
		t.Errorf("NormalizeLines = %q, %v", b.String(), err)
	}
	b.Reset()
	err := NormalizeLines("basic", strings.NewReader("ok\n\xff\nnever\n"), &b)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, ErrBadUTF8) || b.String() != "ok\n" {
		t.Errorf("bad line: err %v, wrote %q", err, b.String())
	}
}
