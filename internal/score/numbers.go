package score

import (
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// This file is Whisper's EnglishNumberNormalizer in Go: spelled-out numbers
// to digits ("twenty-five percent" -> "25%", "one oh one" -> "101"),
// currency words after a number to a symbol before it, ordinals and plurals
// keep their suffix. Values are arbitrary precision (Whisper's go up to
// "decillion", 10^33), as Python's ints are.

var (
	numZeros = map[string]bool{"o": true, "oh": true, "zero": true}
	numOnes  = map[string]int64{}
	numTens  = map[string]int64{
		"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	numMultipliers   = map[string]*big.Int{}
	numOnesSuffixed  = map[string]suffixed{}
	numTensSuffixed  = map[string]suffixed{}
	numMultSuffixed  = map[string]suffixedBig{}
	precedingPrefix  = map[string]string{"minus": "-", "negative": "-", "plus": "+", "positive": "+"}
	followingPrefix  = map[string]string{"pound": "£", "pounds": "£", "euro": "€", "euros": "€", "dollar": "$", "dollars": "$", "cent": "¢", "cents": "¢"}
	numPrefixes      = map[rune]bool{'-': true, '+': true, '£': true, '€': true, '$': true, '¢': true}
	numSpecials      = map[string]bool{"and": true, "double": true, "triple": true, "point": true}
	numWords         = map[string]bool{}
	numDecimals      = map[string]bool{}
	reAndAHalf       *wordRE
	reHalfMultiplier *wordRE
	reLetterDigit    = regexp.MustCompile(`([a-z])([0-9])`)
	reDigitLetter    = regexp.MustCompile(`([0-9])([a-z])`)
	reNumSuffix      = newWordRE(`([0-9])[`+pySpace+`]+(st|nd|rd|th|s)`, false, true)
	reCents          = newWordRE(`([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})`, false, true)
	reZeroCents      = newWordRE(`[€£$]0.([0-9]{1,2})`, false, true)
	reOne            = newWordRE(`1(s?)`, true, true)
)

type suffixed struct {
	v      int64
	suffix string
}

type suffixedBig struct {
	v      *big.Int
	suffix string
}

func init() {
	ones := []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	for i, name := range ones {
		v := int64(i + 1)
		numOnes[name] = v
		plural := name + "s"
		if name == "six" {
			plural = "sixes"
		}
		numOnesSuffixed[plural] = suffixed{v, "s"}
	}
	for name, s := range map[string]suffixed{"zeroth": {0, "th"}, "first": {1, "st"}, "second": {2, "nd"}, "third": {3, "rd"}, "fifth": {5, "th"}, "twelfth": {12, "th"}} {
		numOnesSuffixed[name] = s
	}
	for name, v := range numOnes {
		if v > 3 && v != 5 && v != 12 {
			if strings.HasSuffix(name, "t") {
				numOnesSuffixed[name+"h"] = suffixed{v, "th"}
			} else {
				numOnesSuffixed[name+"th"] = suffixed{v, "th"}
			}
		}
	}
	for name, v := range numTens {
		numTensSuffixed[strings.ReplaceAll(name, "y", "ies")] = suffixed{v, "s"}
		numTensSuffixed[strings.ReplaceAll(name, "y", "ieth")] = suffixed{v, "th"}
	}
	mult := []string{"hundred", "thousand", "million", "billion", "trillion", "quadrillion",
		"quintillion", "sextillion", "septillion", "octillion", "nonillion", "decillion"}
	for i, name := range mult {
		v := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2+3*i)), nil)
		if i == 0 {
			v = big.NewInt(100)
		} else {
			v = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(3*i)), nil)
		}
		numMultipliers[name] = v
		numMultSuffixed[name+"s"] = suffixedBig{v, "s"}
		numMultSuffixed[name+"th"] = suffixedBig{v, "th"}
	}
	for _, m := range []map[string]bool{numZeros, numSpecials} {
		for k := range m {
			numWords[k] = true
		}
	}
	for k := range numOnes {
		numWords[k] = true
		numDecimals[k] = true
	}
	for k := range numTens {
		numWords[k] = true
		numDecimals[k] = true
	}
	for k := range numZeros {
		numDecimals[k] = true
	}
	for _, m := range []map[string]suffixed{numOnesSuffixed, numTensSuffixed} {
		for k := range m {
			numWords[k] = true
		}
	}
	for k := range numMultipliers {
		numWords[k] = true
	}
	for k := range numMultSuffixed {
		numWords[k] = true
	}
	for _, m := range []map[string]string{precedingPrefix, followingPrefix} {
		for k := range m {
			numWords[k] = true
		}
	}
	numWords["per"] = true
	numWords["percent"] = true

	names := make([]string, 0, len(numMultipliers))
	for k := range numMultipliers {
		names = append(names, k)
	}
	sortByLenDesc(names)
	alt := strings.Join(names, "|")
	sp := `[` + pySpace + `]+`
	reAndAHalf = newWordRE(`and`+sp+`a`+sp+`half`, true, true)
	reHalfMultiplier = newWordRE(`(?:a`+sp+`half`+sp+`|half`+sp+`(?:a`+sp+`)?)(`+alt+`)`, true, true)
}

// sortByLenDesc sorts longest first, then bytewise, as Python's
// sorted(key=len, reverse=True) does for these distinct-length-ties lists
// (only the order of equal lengths may differ, which cannot matter for
// alternatives bounded by \b on both sides).
func sortByLenDesc(words []string) {
	sort.Slice(words, func(i, j int) bool {
		if len(words[i]) != len(words[j]) {
			return len(words[i]) > len(words[j])
		}
		return words[i] < words[j]
	})
}

func normalizeNumbers(s string) string {
	s = numPreprocess(s)
	s = strings.Join(processNumberWords(pyFields(s)), " ")
	return numPostprocess(s)
}

func numPreprocess(s string) string {
	// "<number> and a half" -> "<number> point five"
	segments := splitWordRE(reAndAHalf, s)
	results := make([]string, 0, 2*len(segments))
	for i, seg := range segments {
		if strings.TrimFunc(seg, pyIsSpace) == "" {
			continue
		}
		results = append(results, seg)
		if i == len(segments)-1 {
			continue
		}
		f := pyFields(seg)
		last := f[len(f)-1]
		if _, ok := numMultipliers[last]; ok || numDecimals[last] {
			results = append(results, "point five")
		} else {
			results = append(results, "and a half")
		}
	}
	s = strings.Join(results, " ")
	// "half a million" -> "0.5 million"
	if !strings.Contains(s, "half") {
		return numSpacing(s)
	}
	s = reHalfMultiplier.replace(s, func(s string, m []int) string { return "0.5 " + group(s, m, 1) })
	return numSpacing(s)
}

// numSpacing puts a space at letter/digit boundaries, except before a
// suffix ("10 th" -> "10th").
func numSpacing(s string) string {
	if strings.IndexAny(s, "0123456789") < 0 {
		return s
	}
	s = reLetterDigit.ReplaceAllString(s, "${1} ${2}")
	s = reDigitLetter.ReplaceAllString(s, "${1} ${2}")
	return reNumSuffix.replace(s, func(s string, m []int) string { return group(s, m, 1) + group(s, m, 2) })
}

// splitWordRE is re.split for a pattern without groups.
func splitWordRE(w *wordRE, s string) []string {
	if !strings.Contains(s, "half") {
		return []string{s}
	}
	var out []string
	last := 0
	w.replace(s, func(s string, m []int) string {
		out = append(out, s[last:m[0]])
		last = m[1]
		return ""
	})
	return append(out, s[last:])
}

func numPostprocess(s string) string {
	if strings.ContainsRune(s, '¢') {
		s = reCents.replace(s, func(s string, m []int) string {
			c, _ := strconv.Atoi(group(s, m, 3))
			return group(s, m, 1) + group(s, m, 2) + "." + twoDigits(c)
		})
		s = reZeroCents.replace(s, func(s string, m []int) string {
			c, _ := strconv.Atoi(group(s, m, 1))
			return "¢" + strconv.Itoa(c)
		})
	} else if strings.ContainsAny(s, "€£$") {
		s = reZeroCents.replace(s, func(s string, m []int) string {
			c, _ := strconv.Atoi(group(s, m, 1))
			return "¢" + strconv.Itoa(c)
		})
	}
	if strings.ContainsRune(s, '1') {
		s = reOne.replace(s, func(s string, m []int) string { return "one" + group(s, m, 1) })
	}
	return s
}

func twoDigits(c int) string {
	if c < 10 {
		return "0" + strconv.Itoa(c)
	}
	return strconv.Itoa(c)
}

// numValue is Whisper's `value`: None, an int or a str.
type numValue struct {
	set   bool
	isStr bool
	str   string
	n     *big.Int
}

func (v numValue) String() string {
	if v.isStr {
		return v.str
	}
	return v.n.String()
}

// orEmpty is Python's str(value or ""): None, 0 and "" give "".
func (v numValue) orEmpty() string {
	if !v.set || (!v.isStr && v.n.Sign() == 0) {
		return ""
	}
	return v.String()
}

func strVal(s string) numValue       { return numValue{set: true, isStr: true, str: s} }
func intVal(n *big.Int) numValue     { return numValue{set: true, n: n} }
func int64Val(n int64) numValue      { return intVal(big.NewInt(n)) }
func (v numValue) mod(k int64) int64 { return new(big.Int).Mod(v.n, big.NewInt(k)).Int64() }

// toFraction is Python's Fraction(s) for the strings this code can hold:
// optional sign, digits, optional "." and digits. ok is false where Python
// raises ValueError.
func toFraction(s string) (*big.Rat, bool) {
	t := strings.TrimFunc(s, pyIsSpace)
	sign := ""
	if t != "" && (t[0] == '-' || t[0] == '+') {
		sign, t = t[:1], t[1:]
	}
	intPart, frac, hasDot := strings.Cut(t, ".")
	if !allDigits(intPart) || !allDigits(frac) || intPart == "" && frac == "" {
		return nil, false
	}
	if !hasDot && intPart == "" {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(sign + asciiDigits(intPart+"."+frac+"0"))
	if !ok {
		return nil, false
	}
	return r, true
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// asciiDigits maps Unicode decimal digits to ASCII, as Python's int() reads
// them.
func asciiDigits(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x80 && unicode.IsDigit(r) {
			b.WriteByte(byte('0' + digitValue(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// digitValue returns the value of a Unicode decimal digit: every Nd block is
// ten consecutive code points starting at a zero.
func digitValue(r rune) int {
	for k := 0; k < 10; k++ {
		if !unicode.IsDigit(r - rune(k)) {
			return k - 1
		}
	}
	return 9
}

func processNumberWords(words []string) []string {
	var out []string
	var prefix string
	hasPfx := false
	var value numValue
	skip := false
	emit := func(r string) {
		if hasPfx {
			r = prefix + r
		}
		value = numValue{}
		hasPfx = false
		prefix = ""
		out = append(out, r)
	}
	for i, cur := range words {
		if skip {
			skip = false
			continue
		}
		prev, next := "", ""
		hasPrev, hasNext := i > 0, i+1 < len(words)
		if hasPrev {
			prev = words[i-1]
		}
		if hasNext {
			next = words[i+1]
		}
		nextIsNumeric := hasNext && isNumeric(next)
		first := []rune(cur)[0]
		curHasPfx := numPrefixes[first]
		curNoPfx := cur
		if curHasPfx {
			curNoPfx = cur[len(string(first)):]
		}
		_, prevIsOne := numOnes[prev]
		prevIsOne = prevIsOne && hasPrev
		_, prevIsTen := numTens[prev]
		prevIsTen = prevIsTen && hasPrev

		if isNumeric(curNoPfx) {
			f, _ := toFraction(curNoPfx)
			if value.set {
				if value.isStr && strings.HasSuffix(value.str, ".") {
					value = strVal(value.str + cur)
					continue
				}
				emit(value.String())
			}
			if curHasPfx {
				prefix, hasPfx = string(first), true
			}
			if f.IsInt() {
				value = intVal(new(big.Int).Set(f.Num()))
			} else {
				value = strVal(curNoPfx)
			}
			continue
		}
		if !numWords[cur] {
			if value.set {
				emit(value.String())
			}
			emit(cur)
			continue
		}
		if numZeros[cur] {
			value = strVal(value.orEmpty() + "0")
			continue
		}
		if ones, ok := numOnes[cur]; ok {
			switch {
			case !value.set:
				value = int64Val(ones)
			case value.isStr || prevIsOne:
				if prevIsTen && ones < 10 {
					v := value.String()
					value = strVal(v[:len(v)-1] + strconv.FormatInt(ones, 10))
				} else {
					value = strVal(value.String() + strconv.FormatInt(ones, 10))
				}
			case ones < 10:
				if value.mod(10) == 0 {
					value = intVal(new(big.Int).Add(value.n, big.NewInt(ones)))
				} else {
					value = strVal(value.String() + strconv.FormatInt(ones, 10))
				}
			default:
				if value.mod(100) == 0 {
					value = intVal(new(big.Int).Add(value.n, big.NewInt(ones)))
				} else {
					value = strVal(value.String() + strconv.FormatInt(ones, 10))
				}
			}
			continue
		}
		if sx, ok := numOnesSuffixed[cur]; ok {
			ones, suffix := sx.v, sx.suffix
			os := strconv.FormatInt(ones, 10)
			switch {
			case !value.set:
				emit(os + suffix)
			case value.isStr || prevIsOne:
				if prevIsTen && ones < 10 {
					v := value.String()
					emit(v[:len(v)-1] + os + suffix)
				} else {
					emit(value.String() + os + suffix)
				}
			case ones < 10:
				if value.mod(10) == 0 {
					emit(new(big.Int).Add(value.n, big.NewInt(ones)).String() + suffix)
				} else {
					emit(value.String() + os + suffix)
				}
			default:
				if value.mod(100) == 0 {
					emit(new(big.Int).Add(value.n, big.NewInt(ones)).String() + suffix)
				} else {
					emit(value.String() + os + suffix)
				}
			}
			value = numValue{}
			continue
		}
		if tens, ok := numTens[cur]; ok {
			ts := strconv.FormatInt(tens, 10)
			switch {
			case !value.set:
				value = int64Val(tens)
			case value.isStr:
				value = strVal(value.str + ts)
			case value.mod(100) == 0:
				value = intVal(new(big.Int).Add(value.n, big.NewInt(tens)))
			default:
				value = strVal(value.String() + ts)
			}
			continue
		}
		if sx, ok := numTensSuffixed[cur]; ok {
			tens, suffix := sx.v, sx.suffix
			ts := strconv.FormatInt(tens, 10)
			switch {
			case !value.set:
				emit(ts + suffix)
			case value.isStr:
				emit(value.str + ts + suffix)
			case value.mod(100) == 0:
				emit(new(big.Int).Add(value.n, big.NewInt(tens)).String() + suffix)
			default:
				emit(value.String() + ts + suffix)
			}
			// Whisper does not reset value here.
			continue
		}
		if mult, ok := numMultipliers[cur]; ok {
			switch {
			case !value.set:
				value = intVal(mult)
			case value.isStr || value.n.Sign() == 0:
				f, ok := toFraction(value.String())
				var p *big.Rat
				if ok {
					p = new(big.Rat).Mul(f, new(big.Rat).SetInt(mult))
				}
				if ok && p.IsInt() {
					value = intVal(new(big.Int).Set(p.Num()))
				} else {
					emit(value.String())
					value = intVal(mult)
				}
			default:
				value = intVal(applyMultiplier(value.n, mult))
			}
			continue
		}
		if sx, ok := numMultSuffixed[cur]; ok {
			mult, suffix := sx.v, sx.suffix
			switch {
			case !value.set:
				emit(mult.String() + suffix)
			case value.isStr:
				f, ok := toFraction(value.str)
				var p *big.Rat
				if ok {
					p = new(big.Rat).Mul(f, new(big.Rat).SetInt(mult))
				}
				if ok && p.IsInt() {
					emit(p.Num().String() + suffix)
				} else {
					emit(value.String())
					emit(mult.String() + suffix)
				}
			default:
				value = intVal(applyMultiplier(value.n, mult))
				emit(value.String() + suffix)
			}
			value = numValue{}
			continue
		}
		if p, ok := precedingPrefix[cur]; ok {
			if value.set {
				emit(value.String())
			}
			if hasNext && numWords[next] || nextIsNumeric {
				prefix, hasPfx = p, true
			} else {
				emit(cur)
			}
			continue
		}
		if p, ok := followingPrefix[cur]; ok {
			if value.set {
				prefix, hasPfx = p, true
				emit(value.String())
			} else {
				emit(cur)
			}
			continue
		}
		if cur == "per" || cur == "percent" {
			if value.set {
				if cur == "per" {
					if hasNext && next == "cent" {
						emit(value.String() + "%")
						skip = true
					} else {
						emit(value.String())
						emit(cur)
					}
				} else {
					emit(value.String() + "%")
				}
			} else {
				emit(cur)
			}
			continue
		}
		// specials: and, double, triple, point
		nextNumWord := hasNext && numWords[next]
		if !nextNumWord && !nextIsNumeric {
			if value.set {
				emit(value.String())
			}
			emit(cur)
			continue
		}
		switch cur {
		case "and":
			if _, ok := numMultipliers[prev]; !ok || !hasPrev {
				if value.set {
					emit(value.String())
				}
				emit(cur)
			}
		case "double", "triple":
			_, nextIsOne := numOnes[next]
			if nextIsOne || numZeros[next] {
				repeats := 2
				if cur == "triple" {
					repeats = 3
				}
				ones := numOnes[next]
				value = strVal(value.orEmpty() + strings.Repeat(strconv.FormatInt(ones, 10), repeats))
				skip = true
			} else {
				if value.set {
					emit(value.String())
				}
				emit(cur)
			}
		case "point":
			if numDecimals[next] || nextIsNumeric {
				value = strVal(value.orEmpty() + ".")
			}
		}
	}
	if value.set {
		emit(value.String())
	}
	return out
}

// applyMultiplier is Whisper's before + residual*multiplier, where before
// is value rounded down to thousands and residual the rest.
func applyMultiplier(v, mult *big.Int) *big.Int {
	k := big.NewInt(1000)
	before := new(big.Int).Mul(new(big.Int).Div(v, k), k)
	residual := new(big.Int).Mod(v, k)
	return before.Add(before, residual.Mul(residual, mult))
}

// isNumeric is Whisper's re.match(r"^\d+(\.\d+)?$", s) with Unicode \d.
func isNumeric(s string) bool {
	a, b, dot := strings.Cut(s, ".")
	return a != "" && allDigits(a) && (!dot || b != "" && allDigits(b))
}
