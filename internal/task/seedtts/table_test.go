package seedtts

import (
	"strings"
	"testing"
)

// The table has the seed client's columns, one row per target and level,
// the figures of SeedTTSClaims, and the target through cell.
func TestSeedTTSTable(t *testing.T) {
	run, recs := compatRun()
	c, err := SeedTTSClaims(run, recs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.WriteTable(&b, func(s string) string { return "<" + s + ">" }); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "| <") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1:\n%s", len(rows), b.String())
	}
	cells := strings.Split(rows[0], " | ")
	// conc, valid reps, evaluated/requests, wall mean, req/s mean and best, RTFx mean.
	for i, want := range map[int]string{2: "2/2 / 2/2 / 2/2", 3: "4/8", 4: "1.500", 5: "1.500", 6: "2.000", 7: "3.002"} {
		if cells[i] != want {
			t.Errorf("column %d = %q, want %q\n%s", i, cells[i], want, rows[0])
		}
	}
	if !strings.Contains(b.String(), "| corpus WER | max WER |") || !strings.Contains(b.String(), "\nResidual: "+c.Residual+".\n") {
		t.Errorf("header or residual missing:\n%s", b.String())
	}
}
