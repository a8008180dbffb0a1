package claims

import (
	"testing"

	"github.com/benchseal/benchseal/schemas"
)

// TestCompareFigures: replay and compare hold the task's figures to the
// tolerance by name after the core's metrics; a figure one side did not
// observe is a DIFF saying so; a replay sealed before figures were
// compared (no figures_rule) re-derives without them; and SealedSide
// rebuilds the sealed figures from a comparison, so a verifier without
// the original re-derives the same rows.
func TestCompareFigures(t *testing.T) {
	side := func(f map[string]float64) schemas.Claims {
		return schemas.Claims{Targets: []schemas.TargetClaims{{Target: "a", Levels: []schemas.LevelClaims{{Concurrency: 1,
			Median: schemas.Metrics{Requests: 10, Succeeded: 10, ReqPerS: 5, Figures: f}}}}}}
	}
	sealed := side(map[string]float64{"ttft_p50_s": 0.1, "itl_p50_s": 0.002})
	replayed := side(map[string]float64{"ttft_p50_s": 0.2})
	rows := map[string]Difference{}
	for _, d := range Compare(sealed, replayed, DefaultTolerance) {
		rows[d.Metric] = d
	}
	if d := rows["ttft_p50_s"]; d.Verdict != Diff || d.Change == nil || *d.Change != 1 {
		t.Errorf("ttft_p50_s doubled: %+v", d)
	}
	if d := rows["itl_p50_s"]; d.Verdict != Diff || d.Reason != "the replay did not observe it" {
		t.Errorf("itl_p50_s not observed in the replay: %+v", d)
	}
	older := DefaultTolerance
	older.Figures = false
	for _, d := range Compare(sealed, replayed, older) {
		if d.Metric == "ttft_p50_s" || d.Metric == "itl_p50_s" {
			t.Errorf("a tolerance without figures compared %s", d.Metric)
		}
	}
	diffs := Compare(sealed, replayed, DefaultTolerance)
	p := ReplayPredicate(schemas.PredicateReplayOf{}, DefaultTolerance, diffs)
	if p.Tolerance.FiguresRule != FiguresRule || !ReplayTolerance(p).Figures {
		t.Fatalf("the sealed tolerance does not say figures were compared: %+v", p.Tolerance)
	}
	again := Compare(SealedSide(p, replayed), replayed, ReplayTolerance(p))
	if len(again) != len(diffs) {
		t.Fatalf("SealedSide re-derives %d rows, the comparison has %d", len(again), len(diffs))
	}
	for i := range diffs {
		if again[i].Metric != diffs[i].Metric || again[i].Verdict != diffs[i].Verdict {
			t.Errorf("row %d: %+v, want %+v", i, again[i], diffs[i])
		}
	}
}

// TestTaskFigureFamilies: a task's figure that older claims lack is a
// later family of its own, so a bundle sealed before the figure existed
// verifies with a warning; the tts family stays one.
func TestTaskFigureFamilies(t *testing.T) {
	f := LaterOf("targets[a].levels[c=1].median.ttft_p50_s")
	if f == nil || f.What != "chat-audio figure ttft_p50_s" {
		t.Fatalf("ttft_p50_s's family: %+v", f)
	}
	if !Predates([]string{"targets[a].levels[c=1].median.ttft_p95_s"})[f.What] {
		t.Error("claims without ttft_p50_s do not predate it")
	}
	if g := LaterOf("targets[a].levels[c=1].median.rtf_p50"); g == nil || g.What == "tts figure rtf_p50" {
		t.Errorf("rtf_p50's family: %+v, want the tts family", g)
	}
}
