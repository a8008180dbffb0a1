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

// hostile is the fixture with markup, Markdown syntax and a pipe in every
// string a report shows.
func hostile() Input {
	in := fixture()
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
	// them), so only what is outside them must be free of markup.
	outside := md
	for _, s := range []string{in.Servers[1].Probes[0].Body, "prompt=" + in.Run.Targets[1].RequestFields["prompt"] + " response_format=json"} {
		span := []byte(mdCode(s))
		if !bytes.Contains(outside, span) {
			t.Fatalf("Markdown lacks the code span %s", span)
		}
		outside = bytes.ReplaceAll(outside, span, nil)
	}
	for _, bad := range []string{"<script", "<img", "<b>", "</code>"} {
		if bytes.Contains(outside, []byte(bad)) {
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
	// 3 charts; throughput, RTFx, latency, WER, errors, cache, telemetry tables.
	if count["svg"] != 3 || count["table"] != 7 || count["h1"] != 1 || count["style"] != 1 {
		t.Errorf("elements: svg %d table %d h1 %d style %d; want 3, 7, 1, 1", count["svg"], count["table"], count["h1"], count["style"])
	}
}
