package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

const evil = `<script>alert("x")</script>`

// hostile is the fixture (with server stages, for their chart and
// table) with markup, Markdown syntax and a pipe in every string a report
// shows.
func hostile() Input {
	in := fixtureStages()
	in.LinkCharts = true
	in.Run.Targets[0].Name = evil
	in.Claims.Targets[0].Target = evil
	in.Run.Targets[1].Model = "m|*_[x](y)_*`"
	in.Run.Targets[1].RequestFields["prompt"] = "a ``b`` </code> & c"
	in.Servers[1].Target = evil
	in.Servers[1].Probes[0].Body = "<img src=x onerror=alert(1)>`tick`"
	in.Run.Notes = []string{"target <b>x</b> failed | level 16"}
	return in
}

func TestEscapedHTML(t *testing.T) {
	_, page, _ := render(t, hostile())
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var walk func(n *html.Node)
	for n := range doc.Descendants() {
		switch {
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "img" || n.Data == "b"):
			t.Errorf("input became a <%s> element", n.Data)
		case n.Type == html.TextNode:
			text.WriteString(n.Data)
		}
	}
	_ = walk
	for _, want := range []string{evil, "<img src=x onerror=alert(1)>`tick`", "target <b>x</b> failed | level 16"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
}

func TestEscapedMarkdown(t *testing.T) {
	in := hostile()
	md, _, _ := render(t, in)
	// Code spans show their contents verbatim (CommonMark parses no HTML in
	// them), so only what is outside them must be free of markup. A probe's
	// body is report.html's (REPORT.md has its status): the same writer
	// holds it as Markdown (pageMarkdown).
	full := pageMarkdown(t, in)
	outside, outsideFull := md, full
	for i, s := range []string{in.Servers[1].Probes[0].Body, "prompt=" + in.Run.Targets[1].RequestFields["prompt"] + " response_format=json"} {
		span := []byte(mdCode(s))
		if !bytes.Contains(full, span) || i > 0 && !bytes.Contains(md, span) {
			t.Fatalf("Markdown lacks the code span %s", span)
		}
		outside = bytes.ReplaceAll(outside, span, nil)
		outsideFull = bytes.ReplaceAll(outsideFull, span, nil)
	}
	for _, bad := range []string{"<script", "<img", "<b>", "</code>"} {
		if bytes.Contains(outside, []byte(bad)) || bytes.Contains(outsideFull, []byte(bad)) {
			t.Errorf("Markdown holds raw %q", bad)
		}
	}
	if !bytes.Contains(md, []byte(`&lt;script&gt;alert("x")&lt;/script&gt;`)) {
		t.Error("the target name is not entity-escaped in Markdown")
	}
	// Every table row has as many cells as its header: escaped pipes do not split.
	cell := regexp.MustCompile(`(^|[^\\])\|`)
	lines := strings.Split(string(md), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			continue
		}
		n := len(cell.FindAllString(lines[i], -1))
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			if got := len(cell.FindAllString(lines[i], -1)); got != n {
				t.Errorf("table row %q has %d separators, header %d", lines[i], got, n)
			}
		}
	}
}

func TestMdCode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      "`plain`",
		"a `b` c":    "``a `b` c``",
		"``x``":      "``` ``x`` ```",
		"two\nlines": "`two lines`",
	} {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
}

// wellFormed reads every token of an XML document.
func wellFormed(t *testing.T, name string, doc []byte) (text string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var sb strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if x.Name.Local == "script" || x.Name.Local == "foreignObject" {
				t.Errorf("%s holds a <%s> element", name, x.Name.Local)
			}
		case xml.CharData:
			sb.Write(x)
		}
	}
	return sb.String()
}

func TestSVGWellFormed(t *testing.T) {
	for _, in := range []Input{fixture(), hostile(), {}} {
		_, page, svgs := render(t, in)
		for ch, doc := range svgs {
			text := wellFormed(t, ch.File(), doc)
			if len(in.Claims.Targets) > 0 && !strings.Contains(text, in.Claims.Targets[0].Target) {
				t.Errorf("%s does not name target %q", ch.File(), in.Claims.Targets[0].Target)
			}
			// HTML inlines the very same bytes.
			if len(in.Claims.Targets) > 0 && !bytes.Contains(page, doc) {
				t.Errorf("report.html of %d targets does not inline %s as written", len(in.Claims.Targets), ch.File())
			}
		}
	}
}

func TestHTMLStructure(t *testing.T) {
	_, page, _ := render(t, fixture())
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode {
			count[n.Data]++
			for _, a := range n.Attr {
				if a.Key == "src" || a.Key == "href" {
					t.Errorf("<%s %s=%q>: the page must need no external asset", n.Data, a.Key, a.Val)
				}
			}
		}
	}
	// 3 charts; conclusion, throughput, RTFx, latency, WER, errors,
	// telemetry tables (the fixture's cache hits, the same at every
	// level, are a sentence).
	if count["svg"] != 3 || count["table"] != 7 || count["h1"] != 1 || count["style"] != 1 {
		t.Errorf("elements: svg %d table %d h1 %d style %d; want 3, 7, 1, 1", count["svg"], count["table"], count["h1"], count["style"])
	}
}

// TestMarkdownDataMakesNoStructure: names, models and notes from the
// input that look like Markdown blocks or links (a bare URL GitHub would
// autolink, an e-mail address, "- ", "1. ", "#") render as their literal
// text: URLs and addresses as code spans, leading markers escaped.
func TestMarkdownDataMakesNoStructure(t *testing.T) {
	const url, www, mail = "https://evil.example/a?b=1", "www.example.com/m", "ops@example.org"
	in := fixture()
	in.Run.Targets[0].Name = url
	in.Claims.Targets[0].Target = url
	in.Servers[0].Target = url
	in.Run.Targets[1].Model = www
	in.Run.Notes = []string{"- dash", "1. one", "2) two", "+ plus", "    indented", "# hash", "=", "---", "see " + mail + " or http://x.example/y|z"}
	md, _, _ := render(t, in)
	s := string(md)
	// Every occurrence sits in a code span: GitHub links no code.
	for _, data := range []string{url, www, mail, "http://x.example/y"} {
		n := strings.Count(s, data)
		if n == 0 {
			t.Fatalf("Markdown lacks %q:\n%s", data, md)
		}
		if k := strings.Count(s, "`"+data+"`"); k != n {
			t.Errorf("%q: %d of %d occurrences outside a code span:\n%s", data, n-k, n, md)
		}
	}
	for _, want := range []string{"- \\- dash\n", "- 1\\. one\n", "- 2\\) two\n", "- \\+ plus\n", "- indented\n", "- \\# hash\n", "- \\=\n", "- \\---\n",
		"- see `" + mail + "` or `http://x.example/y`\\|z\n", "# Speech-to-text benchmark: `" + url + "` vs vllm-omni\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("Markdown lacks the line %q:\n%s", want, md)
		}
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                "plain",
		"a|b":                  `a\|b`,
		"go to https://x.y/z.": "go to `https://x.y/z`.",
		"(https://x/a, b)":     "(`https://x/a`, b)",
		"WWW.x.org and www.y":  "`WWW.x.org` and `www.y`",
		"a@b.co":               "`a@b.co`",
		"a@b":                  "a@b",
		"http://a/`b`&c":       "``http://a/`b`&c``",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
