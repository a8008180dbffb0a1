package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchseal/benchseal/internal/report"
)

// Issue 40: what a reader pastes stays short. The ASR and tts demos'
// REPORT.md is at most demoReportMaxWords words and SUMMARY.md at most
// 250 (report.SummaryMaxWords), counted as wc -w counts them.
const demoReportMaxWords = 1500

func TestDemoReportWords(t *testing.T) {
	requireE2E(t)
	for _, task := range []string{"asr", "tts"} {
		out, _, _, _, _ := demoOf(t, task)
		for file, limit := range map[string]int{"REPORT.md": demoReportMaxWords, "SUMMARY.md": report.SummaryMaxWords} {
			b, err := os.ReadFile(filepath.Join(out, "report", file))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(strings.Fields(string(b))); n > limit {
				t.Errorf("the %s demo's %s has %d words, more than %d", task, file, n, limit)
			}
		}
	}
}
