package score

import (
	"regexp"
	"strings"
)

// englishNormalize is Whisper's EnglishTextNormalizer, step by step, with
// Whisper's British-to-American spelling table (english.json, spelling.go).
func englishNormalize(s string) string {
	// Every step is skipped when the text lacks the characters its pattern
	// needs: the result is the same and scoring stays fast.
	s = pyLower(s)
	s = dropSpans(s)
	s = dropFillers(s)
	if strings.ContainsRune(s, '\'') {
		s = reSpaceApos.ReplaceAllLiteralString(s, "'")
	}
	if mayHaveWholeWord(s) {
		s = reWholeWords.replace(s, func(s string, m []int) string { return wholeWords[group(s, m, 1)] })
	}
	if strings.ContainsRune(s, '\'') {
		s = reContractions.replace(s, func(s string, m []int) string { return contractions[group(s, m, 1)] })
	}
	if strings.ContainsRune(s, ',') {
		s = reDigitComma.ReplaceAllString(s, "${1}${2}")
	}
	if strings.ContainsRune(s, '.') {
		s = rePeriod.ReplaceAllString(s, " ${1}")
	}
	s = removeSymbolsAndDiacritics(s, ".%$¢€£")
	s = normalizeNumbers(s)
	s = normalizeSpelling(s)
	if strings.ContainsAny(s, "$¢€£") {
		s = reCurrencyNum.ReplaceAllString(s, "${1}${2}")
	}
	if strings.ContainsRune(s, '%') {
		s = reNumPercent.ReplaceAllString(s, "${1}%")
	}
	if strings.ContainsAny(s, ".$¢€£") {
		s = reLoneSymbol.ReplaceAllString(s, " ${1}")
	}
	if strings.ContainsRune(s, '%') {
		s = reLonePercent.ReplaceAllString(s, "${1} ")
	}
	return s // runs of white space collapse when split into units
}

// dropSpans removes [...], <...> and (...) spans, as Whisper does.
func dropSpans(s string) string {
	if strings.ContainsAny(s, "<[") {
		s = reBrackets.ReplaceAllLiteralString(s, "")
	}
	if strings.ContainsRune(s, '(') {
		s = reParens.ReplaceAllLiteralString(s, "")
	}
	return s
}

// fillers are what Whisper's \b(hmm|mm|mhm|mmm|uh|um)\b removes. A match
// bounded by \b on both sides is exactly a maximal run of word characters
// equal to a filler, so the runs are compared instead of running a regexp.
var fillers = map[string]bool{"hmm": true, "mm": true, "mhm": true, "mmm": true, "uh": true, "um": true}

func dropFillers(s string) string {
	var b strings.Builder
	done := 0
	forWordRuns(s, func(start, end int) {
		if fillers[s[start:end]] {
			b.WriteString(s[done:start])
			done = end
		}
	})
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// forWordRuns calls f with the byte span of every maximal run of Python \w
// characters in s.
func forWordRuns(s string, f func(start, end int)) {
	start := -1
	for i, r := range s {
		if pyIsWord(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			f(start, i)
			start = -1
		}
	}
	if start >= 0 {
		f(start, len(s))
	}
}

// wholeWordHeads are the first word runs of the whole-word replacements
// ("won" of "won't"): the regexp can only match where one of them occurs.
var wholeWordHeads = map[string]bool{}

func init() {
	for w := range wholeWords {
		head, _, _ := strings.Cut(w, "'")
		wholeWordHeads[head] = true
	}
}

func mayHaveWholeWord(s string) bool {
	found := false
	forWordRuns(s, func(start, end int) {
		if !found && wholeWordHeads[s[start:end]] {
			found = true
		}
	})
	return found
}

var (
	reSpaceApos = regexp.MustCompile(`[` + pySpace + `]+'`)

	reDigitComma = regexp.MustCompile(`(\p{Nd}),(\p{Nd})`)
	rePeriod     = regexp.MustCompile(`\.([^0-9]|$)`)

	reCurrencyNum = regexp.MustCompile(`([$¢€£])[` + pySpace + `]+([0-9])`)
	reNumPercent  = regexp.MustCompile(`([0-9])[` + pySpace + `]+%`)
	reLoneSymbol  = regexp.MustCompile(`[.$¢€£]([^0-9])`)
	reLonePercent = regexp.MustCompile(`([^0-9])%`)
)

// wholeWords are Whisper's replacements bounded by \b on both sides: common
// contractions and titles. Whisper applies them one after another; no
// replacement produces a word of the list, so one pass is the same.
var wholeWords = map[string]string{
	"won't": "will not", "can't": "can not", "let's": "let us", "ain't": "aint",
	"y'all": "you all", "wanna": "want to", "gotta": "got to", "gonna": "going to",
	"i'ma": "i am going to", "imma": "i am going to", "woulda": "would have",
	"coulda": "could have", "shoulda": "should have", "ma'am": "madam",
	"mr": "mister ", "mrs": "missus ", "st": "saint ", "dr": "doctor ",
	"prof": "professor ", "capt": "captain ", "gov": "governor ", "ald": "alderman ",
	"gen": "general ", "sen": "senator ", "rep": "representative ", "pres": "president ",
	"rev": "reverend ", "hon": "honorable ", "asst": "assistant ", "assoc": "associate ",
	"lt": "lieutenant ", "col": "colonel ", "jr": "junior ", "sr": "senior ", "esq": "esquire ",
}

// contractions are the suffix replacements (trailing \b only), in Whisper's
// order; the alternation below keeps that order, so at one place the first
// that Whisper would apply wins.
var contractionOrder = []string{
	"'d been", "'s been", "'d gone", "'s gone", "'d done", "'s got",
	"n't", "'re", "'s", "'d", "'ll", "'t", "'ve", "'m",
}

var contractions = map[string]string{
	"'d been": " had been", "'s been": " has been", "'d gone": " had gone",
	"'s gone": " has gone", "'d done": " had done", "'s got": " has got",
	"n't": " not", "'re": " are", "'s": " is", "'d": " would", "'ll": " will",
	"'t": " not", "'ve": " have", "'m": " am",
}

var (
	reWholeWords   = newWordRE(`(`+alternation(wholeWordOrder())+`)`, true, true)
	reContractions = newWordRE(`(`+alternation(contractionOrder)+`)`, false, true)
)

func wholeWordOrder() []string {
	words := make([]string, 0, len(wholeWords))
	for w := range wholeWords {
		words = append(words, w)
	}
	// Longest first so that a longer word is tried before its prefix
	// ("mrs" before "mr"); both ends are bounded, so this is the same
	// match Python finds.
	sortByLenDesc(words)
	return words
}

func alternation(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(q, "|")
}
