package score

import (
	"strings"
	"unicode"
)

// zhUnits is the "zh" normalizer: full-width ASCII (U+FF01..U+FF5E) to
// half-width and U+3000 to a space, ASCII lower-cased, then every
// punctuation character (ASCII, CJK U+3000..U+303F, half- and full-width
// forms, any Unicode P or S), white space and control character removed.
// Each remaining character is one unit, except that runs of ASCII letters
// and digits stay whole words, as sclite -c NOASCII keeps them: "iPhone 15"
// is two units, "iphone" and "15", not eight.
func zhUnits(s string) []string {
	var units []string
	word := -1 // start of the ASCII word being read, in b
	var b strings.Builder
	b.Grow(len(s))
	flush := func() {
		if word >= 0 {
			units = append(units, b.String()[word:])
			word = -1
		}
	}
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
		case r == 0x3000:
			r = ' '
		}
		if r < 0x80 {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				if word < 0 {
					word = b.Len()
				}
				b.WriteRune(r)
				continue
			}
			flush() // ASCII space, punctuation and control separate words
			continue
		}
		flush()
		if zhDropped(r) {
			continue
		}
		start := b.Len()
		b.WriteRune(r)
		units = append(units, b.String()[start:])
	}
	flush()
	return units
}

func zhDropped(r rune) bool {
	if unicode.IsLetter(r) || unicode.IsNumber(r) {
		return false // 々 (U+3005) and 〇 (U+3007) are characters, not punctuation
	}
	return r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF ||
		pyIsSpace(r) || unicode.IsSpace(r) || unicode.Is(unicode.P, r) || unicode.Is(unicode.S, r) ||
		unicode.Is(unicode.C, r) || unicode.Is(unicode.Z, r)
}
