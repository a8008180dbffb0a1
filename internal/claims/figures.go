package claims

import (
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// Figures fills m.Figures with a repeat's task figures: f's accumulator
// fed the repeat's records in order, each observed figure by name (a
// figure not observed is absent). A task without figures (f nil) adds
// none.
func Figures(m *schemas.Metrics, f task.Figurer, run schemas.Run, recs []schemas.Record) {
	if f == nil {
		return
	}
	acc := f.Accumulate(run)
	for i := range recs {
		acc.Add(&recs[i])
	}
	for _, fig := range acc.Close() {
		if fig.Value == nil {
			continue
		}
		if m.Figures == nil {
			m.Figures = map[string]float64{}
		}
		m.Figures[fig.Name] = *fig.Value
	}
}

// summarizeFigures is each figure's median, min and max over the repeats
// that observed it.
func summarizeFigures(reps []schemas.Metrics, med, lo, hi *schemas.Metrics) {
	names := map[string][]float64{}
	for _, r := range reps {
		for k, x := range r.Figures {
			names[k] = append(names[k], x)
		}
	}
	for k, v := range names {
		a := median(v) // sorts v
		for _, m := range []*schemas.Metrics{med, lo, hi} {
			if m.Figures == nil {
				m.Figures = map[string]float64{}
			}
		}
		med.Figures[k], lo.Figures[k], hi.Figures[k] = a, v[0], v[len(v)-1]
	}
}
