package report

import (
	"bufio"
	"io"
	"strings"
)

// stylesheet is the whole style of the HTML page: no external assets, so the
// file can be opened offline or pasted into a post.
const stylesheet = `body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,"PingFang SC","Microsoft YaHei","Noto Sans CJK SC","WenQuanYi Micro Hei",sans-serif;color:#222;max-width:980px;margin:2em auto;padding:0 1em;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.tw{overflow-x:auto;max-width:100%}table{border-collapse:collapse;margin:.8em 0}th,td{border:1px solid #ccc;padding:.25em .6em}td{white-space:nowrap}
th{background:#f3f4f6}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
caption{caption-side:bottom;text-align:left;color:#555;font-size:.9em;padding-top:.3em}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:#f3f4f6;padding:0 .2em;border-radius:3px;overflow-wrap:anywhere}
pre{background:#f3f4f6;padding:.8em;overflow-x:auto}pre code{padding:0;background:none}
.warn{background:#fff4e5;border-left:4px solid #d55e00;padding:.6em .9em}
.warn ul{margin:.4em 0 0;padding-left:1.2em}.warn li{margin:.2em 0}
details.paste{margin:.8em 0}details.paste summary{cursor:pointer;color:#0072b2}details.paste pre{white-space:pre-wrap}
figure{margin:1em 0}figure svg{max-width:100%;height:auto;display:block}
@media (max-width:600px){body{margin:1em auto;padding:0 .6em;font-size:15px}h1{font-size:1.3em}th,td{padding:.2em .35em}td{white-space:normal}pre{font-size:.8em}}`

// HTML writes the report as one self-contained HTML page with the charts
// inline.
//
// Below the title (and the banners under it) it carries SUMMARY.md's text
// in a closed block to copy from (pasteBlock), so that the page a reader
// opens gives them what to paste.
func HTML(w io.Writer, in Input) error {
	v := newView(in)
	blocks := htmlBlocks(v.build())
	at := 0
	for i, bl := range blocks {
		if h, ok := bl.(heading); ok && h.level == 1 {
			at = i + 1
			break
		}
	}
	for at < len(blocks) {
		if p, ok := blocks[at].(para); !ok || !p.warn {
			break
		}
		at++
	}
	text := v.summaryText()
	paste := pasteBlock{title: v.tr("Summary to paste (SUMMARY.md, %d words)", len(strings.Fields(text))), text: text}
	blocks = append(blocks[:at], append([]block{paste}, blocks[at:]...)...)
	return writeHTML(w, v, blocks)
}

// pasteBlock is text to copy whole, closed until opened (HTML only).
type pasteBlock struct{ title, text string }

// writeHTML writes blocks as one self-contained page (the report's, and
// compare's).
func writeHTML(w io.Writer, v *view, blocks []block) error {
	bw := bufio.NewWriter(w)
	title := ""
	for _, bl := range blocks {
		if h, ok := bl.(heading); ok {
			title = h.text
			break
		}
	}
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"" + v.htmlLang() + "\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	bw.WriteString("<title>" + esc(title) + "</title>\n<style>\n" + stylesheet + "\n</style>\n</head>\n<body>\n<main>\n")
	for _, bl := range blocks {
		switch x := bl.(type) {
		case heading:
			n := string(rune('0' + x.level))
			bw.WriteString("<h" + n + ">" + esc(x.text) + "</h" + n + ">\n")
		case para:
			if x.warn {
				bw.WriteString(`<p class="warn">` + htmlSpans(x.spans) + "</p>\n")
			} else {
				bw.WriteString("<p>" + htmlSpans(x.spans) + "</p>\n")
			}
		case box:
			bw.WriteString(`<div class="warn"><strong>` + esc(x.title) + "</strong>\n<ul>\n")
			for _, it := range x.items {
				bw.WriteString("<li>" + htmlSpans(it) + "</li>\n")
			}
			bw.WriteString("</ul>\n</div>\n")
		case bullets:
			bw.WriteString("<ul>\n")
			for _, it := range x.items {
				bw.WriteString("<li>" + htmlSpans(it) + "</li>\n")
			}
			bw.WriteString("</ul>\n")
		case codeBlock:
			bw.WriteString("<pre><code>" + esc(x.text) + "</code></pre>\n")
		case pasteBlock:
			bw.WriteString(`<details class="paste"><summary>` + esc(x.title) + "</summary>\n<pre><code>" + esc(x.text) + "</code></pre>\n</details>\n")
		case figure:
			bw.WriteString("<figure>\n")
			v.svg(bw, x.chart)
			bw.WriteString("</figure>\n")
		case table:
			bw.WriteString("<div class=\"tw\"><table>\n")
			if x.caption != "" {
				bw.WriteString("<caption>" + esc(x.caption) + "</caption>\n")
			}
			bw.WriteString("<thead><tr>")
			for i, h := range x.header {
				bw.WriteString("<th" + numClass(x.right, i) + ">" + esc(h) + "</th>")
			}
			bw.WriteString("</tr></thead>\n<tbody>\n")
			for _, r := range x.rows {
				bw.WriteString("<tr>")
				for i, cell := range r {
					bw.WriteString("<td" + numClass(x.right, i) + ">" + esc(cell) + "</td>")
				}
				bw.WriteString("</tr>\n")
			}
			bw.WriteString("</tbody>\n</table></div>\n")
		}
	}
	bw.WriteString("</main>\n</body>\n</html>\n")
	return bw.Flush()
}

func numClass(right []bool, i int) string {
	if i < len(right) && right[i] {
		return ` class="n"`
	}
	return ""
}

func htmlSpans(ss []span) string {
	var b strings.Builder
	for _, s := range ss {
		switch s.kind {
		case code:
			b.WriteString("<code>" + esc(s.text) + "</code>")
		case strong:
			b.WriteString("<strong>" + esc(s.text) + "</strong>")
		default:
			b.WriteString(esc(s.text))
		}
	}
	return b.String()
}
