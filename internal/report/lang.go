package report

import "fmt"

// Languages the report is written in (Input.Lang). English is the source:
// every string of the report is written in English in the code and looked
// up, as a fmt format, in the table of the chosen language. Numbers, their
// formatting and the verdict rules (internal/verdict) are shared.
var Languages = []string{"en", "zh"}

// tables maps a language to its strings, keyed by the English format. A
// key missing from a table renders in English, and TestLangComplete
// fails.
var tables = map[string]map[string]string{
	"en": nil,
	"zh": zh,
}

// KnownLang reports whether lang is a language of the report.
func KnownLang(lang string) bool {
	_, ok := tables[lang]
	return ok || lang == ""
}

// tr translates the English format s and applies args.
func (v *view) tr(s string, args ...any) string {
	f := s
	if tab := tables[v.in.Lang]; tab != nil {
		if x, ok := tab[s]; ok {
			f = x
		} else if v.missing != nil {
			v.missing[s] = true
		}
	}
	if len(args) == 0 {
		return f
	}
	return fmt.Sprintf(f, args...)
}

// plural picks the English format by n ("%d repeat" / "%d repeats") and
// translates it; languages without plurals map both to one string.
func (v *view) plural(n int, one, many string) string {
	if n == 1 {
		return v.tr(one, n)
	}
	return v.tr(many, n)
}

func (v *view) htmlLang() string {
	if v.in.Lang == "" {
		return "en"
	}
	return v.in.Lang
}

// byValue are the strings the report translates though they come from
// elsewhere: verify's report kinds and check names.
var byValue = []string{"bundle", "run directory", "archive", "signature", "subjects", "schemas", "variants", "claims", "protocol", "fairness",
	// claims.json's telemetry_note (internal/claims.TelemetryNotObserved).
	"not observed (window shorter than --sample-interval)"}
