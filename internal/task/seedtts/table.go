package seedtts

import (
	"fmt"
	"io"
	"strings"
)

// WriteTable writes c as the seed client's own Markdown table
// (benchmark_asr_seedtts.py, _print_table: its "corpus WER" column is the
// max over repeats), one row per target and level, then the residual no
// mode removes. cell escapes a target's name (it comes from the run, so a
// terminal must not take it for control sequences).
func (c SeedTTSCompat) WriteTable(w io.Writer, cell func(string) string) error {
	var b strings.Builder
	b.WriteString("\nFigures under the seed client's definitions (--compat seedtts: mean over repeats, HTTP 200 with empty text scored as deletions, audio = (file size - 44) / byte rate, RTFx to 3 decimals):\n\n")
	b.WriteString("| target | conc | valid reps (lat/RTF/WER) | evaluated/requests | wall(s) mean | req/s mean | req/s best | RTFx mean | lat mean(s) | lat p50(s) | lat p95(s) | RTF mean | RTF p95 | corpus WER | max WER |\n")
	b.WriteString("|---" + strings.Repeat("|---:", 14) + "|\n")
	f := func(p *float64, digits int) string {
		if p == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.*f", digits, *p)
	}
	for _, t := range c.Targets {
		for _, lv := range t.Levels {
			s := lv.Stats
			fmt.Fprintf(&b, "| %s | %d | %d/%d / %d/%d / %d/%d | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				cell(t.Target), lv.Concurrency, s["latency_mean_s"].N, lv.Repeats, s["rtf_mean"].N, lv.Repeats, s["corpus_wer"].N, lv.Repeats,
				lv.Evaluated, lv.Total, f(s["wall_clock_s"].Mean, 3), f(s["throughput_samples_per_s"].Mean, 3), f(s["throughput_samples_per_s"].Max, 3),
				f(s["rtfx"].Mean, 3), f(s["latency_mean_s"].Mean, 3), f(s["latency_median_s"].Mean, 3), f(s["latency_p95_s"].Mean, 3),
				f(s["rtf_mean"].Mean, 4), f(s["rtf_p95"].Mean, 4), f(s["corpus_wer"].Max, 4), f(s["per_sample_wer_max"].Max, 4))
		}
	}
	fmt.Fprintf(&b, "\nResidual: %s.\n", c.Residual)
	_, err := io.WriteString(w, b.String())
	return err
}
