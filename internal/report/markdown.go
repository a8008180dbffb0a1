package report

import (
	"bufio"
	"io"
	"strings"
)

// Markdown writes the report as GitHub-flavoured Markdown. With
// in.LinkCharts it links the chart files (Chart.File) next to it;
// otherwise it has no images.
func Markdown(w io.Writer, in Input) error {
	bw := bufio.NewWriter(w)
	for i, bl := range build(in) {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeMarkdown(bw, bl, in.LinkCharts)
	}
	return bw.Flush()
}

func writeMarkdown(w *bufio.Writer, bl block, link bool) {
	switch x := bl.(type) {
	case heading:
		w.WriteString(strings.Repeat("#", x.level) + " " + mdText(x.text) + "\n")
	case para:
		if x.warn {
			w.WriteString("> ")
		}
		w.WriteString(mdSpans(x.spans) + "\n")
	case bullets:
		for _, it := range x.items {
			w.WriteString("- " + mdSpans(it) + "\n")
		}
	case codeBlock:
		fence := "```"
		for strings.Contains(x.text, fence) {
			fence += "`"
		}
		w.WriteString(fence + "sh\n" + x.text + "\n" + fence + "\n")
	case figure:
		if link {
			w.WriteString("![" + mdText(x.chart.Title()) + "](" + x.chart.File() + ")\n")
		} else {
			w.WriteString("*Chart: " + mdText(x.chart.Title()) + " (written by `benchseal report -o DIR`).*\n")
		}
	case table:
		w.WriteString("|")
		for _, h := range x.header {
			w.WriteString(" " + mdText(h) + " |")
		}
		w.WriteString("\n|")
		for i := range x.header {
			if i < len(x.right) && x.right[i] {
				w.WriteString("---:|")
			} else {
				w.WriteString(":---|")
			}
		}
		w.WriteString("\n")
		for _, r := range x.rows {
			w.WriteString("|")
			for _, cell := range r {
				w.WriteString(" " + mdText(cell) + " |")
			}
			w.WriteString("\n")
		}
		if x.caption != "" {
			w.WriteString("\n" + mdText(x.caption) + "\n")
		}
	}
}

func mdSpans(ss []span) string {
	var b strings.Builder
	for _, s := range ss {
		switch s.kind {
		case code:
			b.WriteString(mdCode(s.text))
		case strong:
			b.WriteString("**" + mdText(s.text) + "**")
		default:
			b.WriteString(mdText(s.text))
		}
	}
	return b.String()
}

// mdEscaper turns text into Markdown that renders as exactly that text:
// inline HTML is neutralised with entities, and every character that could
// start emphasis, a link, code or a table cell is backslash-escaped.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"|", `\|`, "~", `\~`, "#", `\#`,
	"\n", " ", "\r", " ",
)

func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCode is a code span that shows s verbatim: the fence is one backtick
// longer than the longest run inside, padded when s starts or ends with one.
// A pipe still ends a table cell inside code in GFM, so it never lands in
// tables; newlines become spaces.
func mdCode(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
