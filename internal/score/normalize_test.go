package score

import (
	"errors"
	"testing"
)

// whisperEN are the documented behaviours of Whisper's
// EnglishTextNormalizer: the cases of its tests/test_normalizer.py (number
// and text normalizers) and the examples in the benchseal issue.
var whisperEN = []struct{ in, want string }{
	{"Mr. Smith's colour TV cost $5.50, didn't it? Um, yes [laughs].", "mister smith is color tv cost $5.50 did not it yes"},
	{"twenty-five percent", "25%"},
	{"one thousand", "1000"},
	{"1,000,000 people", "1000000 people"},
	{"Hmm, mm, mhm, mmm, uh, um: okay", "okay"},
	{"(inaudible) <unk> fine", "fine"},
	{"Café naïve façade", "cafe naive facade"},
	{"I'm gonna wanna", "i am going to want to"},
	{"We won't, they can't", "we will not they can not"},
	{"two", "2"},
	{"thirty one", "31"},
	{"five twenty four", "524"},
	{"nineteen ninety nine", "1999"},
	{"twenty nineteen", "2019"},
	{"two point five million", "2500000"},
	{"four point two billions", "4200000000s"},
	{"200 thousand", "200000"},
	{"200 thousand dollars", "$200000"},
	{"$20 million", "$20000000"},
	{"€52.4 million", "€52400000"},
	{"£77 thousands", "£77000s"},
	{"two double o eight", "2008"},
	{"three thousand twenty nine", "3029"},
	{"forty three thousand two hundred sixty", "43260"},
	{"forty three thousand two hundred and sixty", "43260"},
	{"nineteen fifties", "1950s"},
	{"thirty first", "31st"},
	{"thirty three thousand and three hundred and thirty third", "33333rd"},
	{"three billion", "3000000000"},
	{"millions", "1000000s"},
	{"july third twenty twenty", "july 3rd 2020"},
	{"august twenty sixth twenty twenty one", "august 26th 2021"},
	{"3 14", "3 14"},
	{"3.14", "3.14"},
	{"3 point 2", "3.2"},
	{"3 point 14", "3.14"},
	{"fourteen point 4", "14.4"},
	{"two point two five dollars", "$2.25"},
	{"two hundred million dollars", "$200000000"},
	{"$20.1 million", "$20100000"},
	{"ninety percent", "90%"},
	{"seventy six per cent", "76%"},
	{"double oh seven", "007"},
	{"double zero seven", "007"},
	{"nine one one", "911"},
	{"nine double one", "911"},
	{"one triple oh one", "10001"},
	{"two thousandth", "2000th"},
	{"thirty two thousandth", "32000th"},
	{"minus 500", "-500"},
	{"positive twenty thousand", "+20000"},
	{"two dollars and seventy cents", "$2.70"},
	{"3 cents", "¢3"},
	{"$0.36", "¢36"},
	{"three euros and sixty five cents", "€3.65"},
	{"three and a half million", "3500000"},
	{"forty eight and a half dollars", "$48.5"},
	{"b747", "b 747"},
	{"10 th", "10th"},
	{"10th", "10th"},
	{"one decillion", "1000000000000000000000000000000000"},
	{"Let's", "let us"},
	{"he's like", "he is like"},
	{"she's been like", "she has been like"},
	{"10km", "10 km"},
	{"10mm", "10 mm"},
	{"RC232", "rc 232"},
	{"Mr. Park visited Assoc. Prof. Kim Jr.", "mister park visited associate professor kim junior"},
	{"The mobilisation of the neighbours' favourite theatre", "the mobilization of the neighbors favorite theater"},
	{"They organised, analysed and travelled", "they organized analyzed and traveled"},
	// \b is Unicode in Python: "mré" is one word, not the title "mr".
	{"mré dr.", "mre doctor"},
}

func TestWhisperEN(t *testing.T) {
	for _, c := range whisperEN {
		got, err := Normalize(NormalizerWhisperEN, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("whisper-en %q = %q, want %q", c.in, got, c.want)
		}
	}
}

var basicCases = []struct{ in, want string }{
	{"Hello, World! [noise] (laughs) ça va?", "hello world ça va"},
	{"Don't STOP", "don t stop"},
	{"ＡＢＣ１２３", "abc123"},
	{"ΣΊΣΥΦΟΣ", "σίσυφος"},
	{"e\u0301t\u00e9", "\u00e9t\u00e9"}, // NFKC composes: nothing left to split
	{"twenty-five  percent\t", "twenty five percent"},
}

func TestBasic(t *testing.T) {
	for _, c := range basicCases {
		got, err := Normalize(NormalizerBasic, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("basic %q = %q, want %q", c.in, got, c.want)
		}
	}
}

var zhCases = []struct{ in, want string }{
	{"你好，世界！", "你 好 世 界"},
	{"我用ＩＰｈｏｎｅ　１５拍照。", "我 用 iphone 15 拍 照"},
	{"“今天”  天气 很好……", "今 天 天 气 很 好"},
	{"Hello World,你好", "hello world 你 好"},
	{"第〇号々", "第 〇 号 々"},
	{"【注意】《书名》", "注 意 书 名"},
}

func TestZH(t *testing.T) {
	for _, c := range zhCases {
		got, err := Normalize(NormalizerZH, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("zh %q = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizeErrors(t *testing.T) {
	if _, err := Normalize("klingon", "x"); !errors.As(err, new(*OptionError)) {
		t.Errorf("unknown normalizer: %v", err)
	}
	if _, err := Normalize(NormalizerNone, "a\xffb"); !errors.Is(err, ErrBadUTF8) {
		t.Errorf("bad UTF-8: %v", err)
	}
}

func FuzzNormalize(f *testing.F) {
	n := 0
	for _, c := range whisperEN {
		f.Add(c.in)
		n++
	}
	for _, c := range basicCases {
		f.Add(c.in)
		n++
	}
	for _, c := range zhCases {
		f.Add(c.in)
		n++
	}
	if n == 0 {
		f.Fatal("no seeds")
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range Normalizers {
			u, err := Units(name, s)
			if err != nil {
				if !errors.Is(err, ErrBadUTF8) {
					t.Fatalf("%s: %v", name, err)
				}
				continue
			}
			for _, w := range u {
				if w == "" || len(pyFields(w)) != 1 {
					t.Fatalf("%s(%q): unit %q is empty or has spaces", name, s, w)
				}
			}
			// Normalising is idempotent on what it produced only for
			// none; for every normalizer it must not fail on its output.
			if _, err := Units(name, join(u)); err != nil {
				t.Fatalf("%s: on own output: %v", name, err)
			}
		}
	})
}
