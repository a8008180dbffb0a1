package peer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes rep verify-style: a line per group with its counts, a
// line per figure not held, what the format cannot prove, and the
// verdict. visible escapes what came from the peer's files (names,
// reasons, the source path) so a terminal shows it as text.
func (rep *Report) WriteText(w io.Writer, visible func(string) string) error {
	oneLine := func(s string) string { return visible(strings.Join(strings.Fields(s), " ")) }
	width := len("NOT OBSERVED")
	var b strings.Builder
	fmt.Fprintf(&b, "%s result %s, checked with the peer's definitions: %s\n", rep.Format, visible(rep.Source), rep.Definitions)
	for _, g := range rep.Groups {
		var held, no, broken int
		for _, f := range g.Figures {
			switch f.Status {
			case Held:
				held++
			case NotObserved:
				no++
			default:
				broken++
			}
		}
		src := ""
		if g.Source != "" {
			src = " (" + g.Source + ")"
		}
		// A group's line is headed by what was checked: BROKEN when a
		// figure broke, HELD when none broke and some held (the figures
		// not observed are counted here and listed beneath, each with
		// its word), NOT OBSERVED when nothing could be checked. Headed
		// by the worst figure, a consistent file read "NOT OBSERVED
		// result: 21 held, 1 not observed", like a problem.
		head := g.Status
		if broken == 0 && held > 0 {
			head = Held
		}
		fmt.Fprintf(&b, "%-*s  %s: %d held, %d not observed, %d broken\n", width, head, oneLine(g.Scope+src), held, no, broken)
		for _, f := range g.Figures {
			if f.Status == Held {
				continue
			}
			line := f.Name + ": " + f.Reason
			if f.Status == Broken && (f.Published != nil || f.Recomputed != nil) {
				line += fmt.Sprintf(" (published %s, recomputed %s)", jsonValue(f.Published), jsonValue(f.Recomputed))
			}
			fmt.Fprintf(&b, "        %s %s\n", f.Status, oneLine(line))
		}
	}
	b.WriteString("cannot be checked from this format:\n")
	for _, u := range rep.Unverifiable {
		fmt.Fprintf(&b, "  - %s\n", u)
	}
	verdict := "every checked figure follows from the raw data"
	if !rep.OK() {
		verdict = "does NOT follow from its raw data"
	}
	fmt.Fprintf(&b, "%d held, %d not observed, %d broken: %s %s\n", rep.Held, rep.NotObserved, rep.Broken, visible(rep.Source), verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

func jsonValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
