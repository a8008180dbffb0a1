package report

import (
	"io"
	"testing"
)

// BenchmarkHTML renders the two-target, 5-level, 3-repeat fixture as one
// HTML page with its three charts inline.
func BenchmarkHTML(b *testing.B) {
	in := fixture()
	b.ReportAllocs()
	for b.Loop() {
		if err := HTML(io.Discard, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkdown renders the same fixture as Markdown.
func BenchmarkMarkdown(b *testing.B) {
	in := fixture()
	b.ReportAllocs()
	for b.Loop() {
		if err := Markdown(io.Discard, in); err != nil {
			b.Fatal(err)
		}
	}
}
