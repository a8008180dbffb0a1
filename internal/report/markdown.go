package report

import (
	"bufio"
	"io"
	"regexp"
	"strings"

	"github.com/benchseal/benchseal/schemas"
)

// Markdown writes the report as GitHub-flavoured Markdown. With
// in.LinkCharts it links the chart files (Chart.File) next to it;
// otherwise it has no images.
//
// Its last line names the rules it was rendered under (RulesVersion,
// schemas.ReportRulesLine), an HTML comment no viewer shows.
func Markdown(w io.Writer, in Input) error {
	bw := bufio.NewWriter(w)
	for i, bl := range mdBlocks(build(in)) {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeMarkdown(bw, bl, in.LinkCharts)
	}
	bw.WriteString("\n" + schemas.ReportRulesLine(RulesVersion) + "\n")
	return bw.Flush()
}

// RulesVersion numbers the rules that turn a run's sealed data into
// REPORT.md. Any build with the same number writes the same bytes from
// the same data: benchseal verify renders a REPORT.md that names this
// number again and FAILs it when one byte differs, and only WARNs for one
// that names another (or none: a build before the number). Raise it with
// every change to what Markdown writes for the same input;
// TestRulesVersion holds it to the golden report's digest.
const RulesVersion = 3

func writeMarkdown(w *bufio.Writer, bl block, link bool) {
	switch x := bl.(type) {
	case heading:
		w.WriteString(strings.Repeat("#", x.level) + " " + mdText(x.text) + "\n")
	case para:
		if x.warn {
			w.WriteString("> ")
		}
		w.WriteString(mdLine(mdSpans(x.spans)) + "\n")
	case box:
		w.WriteString("> **" + mdText(x.title) + "**\n>\n")
		for _, it := range x.items {
			w.WriteString("> - " + mdLine(mdSpans(it)) + "\n")
		}
	case bullets:
		for _, it := range x.items {
			w.WriteString("- " + mdLine(mdSpans(it)) + "\n")
		}
	case codeBlock:
		fence := "```"
		for strings.Contains(x.text, fence) {
			fence += "`"
		}
		w.WriteString(fence + "sh\n" + x.text + "\n" + fence + "\n")
	case figure:
		if link {
			w.WriteString("![" + mdText(x.title) + "](" + x.chart.File() + ")\n")
		} else {
			w.WriteString("*" + mdText(x.title) + " (`benchseal report -o DIR`).*\n")
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
			w.WriteString("\n" + mdLine(mdText(x.caption)) + "\n")
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

// autolinkRe finds what GitHub links by itself in plain text: URLs
// (http://, https://, ftp://, www.) and e-mail addresses. A pipe ends one,
// so that it stays outside the code span (where it would still split a
// table cell) and is escaped.
var autolinkRe = regexp.MustCompile(`(?i)(?:\b(?:https?|ftp)://|\bwww\.)[^\s|]*|[a-z0-9.+_-]+@[a-z0-9_-]+(?:\.[a-z0-9_-]+)+`)

// mdText escapes s with mdEscaper and shows what GitHub would autolink as
// a code span, so the text is data, never a link.
func mdText(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(s, "@") && !strings.Contains(strings.ToLower(s), "www.") {
		return mdEscaper.Replace(s)
	}
	var b strings.Builder
	for {
		loc := autolinkRe.FindStringIndex(s)
		if loc == nil {
			break
		}
		// Trailing punctuation is the sentence's, as GitHub reads it.
		end := loc[0] + len(strings.TrimRight(s[loc[0]:loc[1]], `?!.,:;*_~'")`))
		b.WriteString(mdEscaper.Replace(s[:loc[0]]))
		b.WriteString(mdCode(s[loc[0]:end]))
		s = s[end:]
	}
	b.WriteString(mdEscaper.Replace(s))
	return b.String()
}

// orderedRe is the start of an ordered list item: up to 9 digits, then
// "." or ")", then a space or the end.
var orderedRe = regexp.MustCompile(`^\d{1,9}[.)](?:[ \t]|$)`)

// mdLine makes an escaped line safe at the start of a block: the
// indentation that would make it code is dropped (it never showed), and a
// leading list marker, thematic break or setext underline (-, +, =, 1.,
// 1)) is escaped; mdText already escapes #, >, * and _ everywhere.
func mdLine(s string) string {
	s = strings.TrimLeft(s, " \t")
	switch {
	case s == "":
	case strings.IndexByte("-+=", s[0]) >= 0:
		s = `\` + s
	case orderedRe.MatchString(s):
		i := strings.IndexAny(s, ".)")
		s = s[:i] + `\` + s[i:]
	}
	return s
}

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
