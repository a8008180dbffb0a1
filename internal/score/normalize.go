package score

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// Normalizer names, recorded in run.json (schemas.Scoring.Normalizer).
const (
	NormalizerWhisperEN = "whisper-en"
	NormalizerBasic     = "basic"
	NormalizerZH        = "zh"
	NormalizerNone      = "none"
)

// Normalizers lists the normalizer names, in the order help text shows them.
var Normalizers = []string{NormalizerWhisperEN, NormalizerBasic, NormalizerZH, NormalizerNone}

// Aligners lists the aligner names.
var Aligners = []string{AlignerUnit, AlignerSclite}

// Normalize returns s as the named normalizer leaves it: the text whose units
// (Units) get scored. Leading and trailing white space is trimmed and runs
// of white space are one space; for "zh" the units are separated by spaces.
func Normalize(normalizer, s string) (string, error) {
	u, err := Units(normalizer, s)
	if err != nil {
		return "", err
	}
	return strings.Join(u, " "), nil
}

// Units normalises s and splits it into the units that are aligned: words,
// or for "zh" characters (with ASCII words kept whole, as sclite -c NOASCII
// does).
func Units(normalizer, s string) ([]string, error) {
	if !utf8.ValidString(s) {
		return nil, ErrBadUTF8
	}
	switch normalizer {
	case NormalizerWhisperEN:
		return pyFields(englishNormalize(s)), nil
	case NormalizerBasic:
		return pyFields(basicNormalize(s)), nil
	case NormalizerZH:
		return zhUnits(s), nil
	case NormalizerNone:
		return pyFields(s), nil
	}
	return nil, &OptionError{Option: "normalizer", Value: normalizer, Valid: Normalizers}
}

// The Whisper normalizers are Python; these helpers give Go the meaning
// Python's str methods and re module have for str patterns, where Go's
// differ: \s and str.split() are Unicode white space, \w and \b are Unicode
// letters and digits, str.lower() is full Unicode lower-casing.

// pyIsSpace is Python's str.isspace().
func pyIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ', 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pySpace is Python's \s as a regexp class body.
const pySpace = `\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// pyIsWord is Python's \w for str patterns (str.isalnum() or '_').
func pyIsWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// pyFields is Python's str.split() with no arguments.
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

var lowerCaser = cases.Lower(language.Und)

// pyLower is Python's str.lower(): full case mapping, final sigma included.
func pyLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			return lowerCaser.String(s)
		}
	}
	return strings.ToLower(s)
}

var (
	reBrackets = regexp.MustCompile(`[<\[][^>\]]*[>\]]`)
	reParens   = regexp.MustCompile(`\(([^)]+?)\)`)
	reSpaces   = regexp.MustCompile(`[` + pySpace + `]+`)
)

// category classes of Python's unicodedata.category(c)[0] in "MSP".
func isMark(r rune) bool   { return unicode.Is(unicode.M, r) }
func isSymOrP(r rune) bool { return unicode.Is(unicode.S, r) || unicode.Is(unicode.P, r) }

// basicNormalize is Whisper's BasicTextNormalizer() with its defaults
// (remove_diacritics=False, split_letters=False): lower-case, drop [...],
// <...> and (...) spans, NFKC, every mark, symbol and punctuation character
// to a space, lower-case again, collapse white space.
func basicNormalize(s string) string {
	s = pyLower(s)
	s = reBrackets.ReplaceAllLiteralString(s, "")
	s = reParens.ReplaceAllLiteralString(s, "")
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 {
			if isASCIIPunct(r) {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
			continue
		}
		if isMark(r) || isSymOrP(r) {
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	s = pyLower(b.String())
	return reSpaces.ReplaceAllLiteralString(s, " ")
}

// isASCIIPunct reports ASCII characters in Unicode categories P and S.
func isASCIIPunct(r rune) bool {
	return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
}

// additionalDiacritics are letters NFKD does not decompose; Whisper maps
// them by hand.
var additionalDiacritics = map[rune]string{
	'œ': "oe", 'Œ': "OE", 'ø': "o", 'Ø': "O", 'æ': "ae", 'Æ': "AE",
	'ß': "ss", 'ẞ': "SS", 'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D",
	'þ': "th", 'Þ': "th", 'ł': "l", 'Ł': "L",
}

// removeSymbolsAndDiacritics is Whisper's remove_symbols_and_diacritics:
// NFKD, then keep the runes in keep, map additionalDiacritics, drop Mn, turn
// other marks, symbols and punctuation into spaces.
func removeSymbolsAndDiacritics(s, keep string) string {
	s = norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case strings.ContainsRune(keep, r):
			b.WriteRune(r)
		case r < 0x80:
			if isASCIIPunct(r) {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		default:
			if m, ok := additionalDiacritics[r]; ok {
				b.WriteString(m)
			} else if unicode.Is(unicode.Mn, r) {
			} else if isMark(r) || isSymOrP(r) {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// wordRE is a regexp whose leading and/or trailing \b have Python's Unicode
// meaning. Go's \b is ASCII-only ("café" would end at "caf"), so the
// boundaries are checked by hand: the leading one against the rune before
// the match, the trailing one as a final group that matches a non-word rune
// or the end (the search resumes before that rune, so it acts as a
// look-ahead and backtracking inside the pattern still works).
type wordRE struct {
	re   *regexp.Regexp
	lead bool
	last int // index of the trailing group, or -1
}

func newWordRE(core string, lead, trail bool) *wordRE {
	p := `(?:` + core + `)`
	last := -1
	if trail {
		p += `([^\p{L}\p{N}_]|$)`
	}
	re := regexp.MustCompile(p)
	if trail {
		last = re.NumSubexp()
	}
	return &wordRE{re: re, lead: lead, last: last}
}

// replace calls repl with the submatch indexes (relative to s) of every
// non-overlapping match, leftmost first, and substitutes its result.
func (w *wordRE) replace(s string, repl func(s string, m []int) string) string {
	var b strings.Builder
	pos, done, matched := 0, 0, false
	for pos <= len(s) {
		m := w.re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			break
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += pos
			}
		}
		start, end := m[0], m[1]
		if w.last >= 0 {
			end = m[2*w.last]
			m = m[:2*w.last]
			m[1] = end
		}
		if w.lead && start > 0 {
			if r, _ := utf8.DecodeLastRuneInString(s[:start]); pyIsWord(r) {
				_, size := utf8.DecodeRuneInString(s[start:])
				pos = start + max(size, 1)
				continue
			}
		}
		matched = true
		b.WriteString(s[done:start])
		b.WriteString(repl(s, m))
		done = end
		pos = end
		if end == start {
			_, size := utf8.DecodeRuneInString(s[end:])
			b.WriteString(s[end : end+size])
			done = end + size
			pos = done
			if size == 0 {
				break
			}
		}
	}
	if !matched {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// literal returns a repl that substitutes a fixed string.
func literal(t string) func(string, []int) string {
	return func(string, []int) string { return t }
}

// group returns submatch k of m in s, or "" if it did not take part.
func group(s string, m []int, k int) string {
	if m[2*k] < 0 {
		return ""
	}
	return s[m[2*k]:m[2*k+1]]
}

func join(units []string) string {
	switch len(units) {
	case 0:
		return ""
	case 1:
		return units[0]
	}
	return strings.Join(units, " ")
}
