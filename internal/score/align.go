package score

// Aligner names.
const (
	AlignerUnit   = "unit"
	AlignerSclite = "sclite"
)

// weights are the edit costs of an aligner. The backtrace rule is the same
// for both: at every cell the diagonal (match or substitution) wins if it
// costs no more than deletion and insertion, else deletion if it is strictly
// cheaper than insertion, else insertion. With sclite's weights this is the
// choice NIST sclite makes (verified against the sctk binary in
// sclite_test.go); with unit weights it yields one of the minimal Levenshtein
// paths, whose error total equals jiwer's.
type weights struct{ sub, del, ins int32 }

var alignerWeights = map[string]weights{
	AlignerUnit:   {sub: 1, del: 1, ins: 1},
	AlignerSclite: {sub: 4, del: 3, ins: 3},
}

// aligner holds the DP rows so that aligning many utterances allocates
// nothing per cell: two rows of cost and of the S/D/I counts of the path
// chosen into each cell. Carrying the counts forward along each cell's chosen
// predecessor gives exactly the counts of the backtrace from the last cell,
// without storing the whole matrix.
type aligner struct {
	w                  weights
	cost, sub, del, in [2][]int32
}

func (a *aligner) grow(n int) {
	if cap(a.cost[0]) >= n {
		for k := 0; k < 2; k++ {
			a.cost[k], a.sub[k], a.del[k], a.in[k] = a.cost[k][:n], a.sub[k][:n], a.del[k][:n], a.in[k][:n]
		}
		return
	}
	for k := 0; k < 2; k++ {
		a.cost[k], a.sub[k], a.del[k], a.in[k] = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	}
}

// align returns the counts of aligning hyp against ref (units interned as
// ints).
func (a *aligner) align(ref, hyp []int32) Counts {
	n, m := len(ref), len(hyp)
	if n == 0 {
		return Counts{Insertions: m}
	}
	if m == 0 {
		return Counts{Deletions: n}
	}
	a.grow(m + 1)
	w := a.w
	// Row 0: only insertions.
	pc, ps, pd, pi := a.cost[0], a.sub[0], a.del[0], a.in[0]
	cc, cs, cd, ci := a.cost[1], a.sub[1], a.del[1], a.in[1]
	for j := 0; j <= m; j++ {
		pc[j], ps[j], pd[j], pi[j] = int32(j)*w.ins, 0, 0, int32(j)
	}
	for i := 1; i <= n; i++ {
		r := ref[i-1]
		cc[0], cs[0], cd[0], ci[0] = int32(i)*w.del, 0, int32(i), 0
		for j := 1; j <= m; j++ {
			diag := pc[j-1]
			isSub := r != hyp[j-1]
			if isSub {
				diag += w.sub
			}
			del := pc[j] + w.del
			ins := cc[j-1] + w.ins
			switch {
			case diag <= del && diag <= ins:
				cc[j], cs[j], cd[j], ci[j] = diag, ps[j-1], pd[j-1], pi[j-1]
				if isSub {
					cs[j]++
				}
			case del < ins:
				cc[j], cs[j], cd[j], ci[j] = del, ps[j], pd[j]+1, pi[j]
			default:
				cc[j], cs[j], cd[j], ci[j] = ins, cs[j-1], cd[j-1], ci[j-1]+1
			}
		}
		pc, cc = cc, pc
		ps, cs = cs, ps
		pd, cd = cd, pd
		pi, ci = ci, pi
	}
	s, d, ins := int(ps[m]), int(pd[m]), int(pi[m])
	return Counts{Correct: n - s - d, Substitutions: s, Deletions: d, Insertions: ins}
}

// interner maps units to small ints so the DP compares ints, not strings.
type interner map[string]int32

func (t interner) ids(units []string, buf []int32) []int32 {
	buf = buf[:0]
	for _, u := range units {
		id, ok := t[u]
		if !ok {
			id = int32(len(t))
			t[u] = id
		}
		buf = append(buf, id)
	}
	return buf
}
