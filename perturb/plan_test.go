package perturb

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestPlanIsPermutation(t *testing.T) {
	clip := sha256.Sum256([]byte("clip"))
	for _, samples := range []int64{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1000, 4097} {
		for _, seed := range []uint64{0, 1, 42} {
			p := Plan{Seed: seed}
			seen := make([]bool, samples)
			for n := range samples {
				i, err := p.Index(clip, samples, n)
				if err != nil {
					t.Fatal(err)
				}
				if i < 0 || i >= samples || seen[i] {
					t.Fatalf("samples %d seed %d: index(%d) = %d repeats or is out of range", samples, seed, n, i)
				}
				seen[i] = true
			}
		}
	}
}

func TestPlanDependsOnSeedAndClip(t *testing.T) {
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	seq := func(p Plan, clip [32]byte) string {
		var s []string
		for n := range int64(20) {
			i, err := p.Index(clip, 16000, n)
			if err != nil {
				t.Fatal(err)
			}
			s = append(s, strconv.FormatInt(i, 10))
		}
		return strings.Join(s, ",")
	}
	base := seq(Plan{Seed: 1}, a)
	if base != seq(Plan{Seed: 1}, a) {
		t.Fatal("the plan is not deterministic")
	}
	if base == seq(Plan{Seed: 2}, a) || base == seq(Plan{Seed: 1}, b) {
		t.Fatal("the plan ignores the seed or the clip")
	}
	// Not the identity, nor a shift: the first indices are spread out.
	if strings.HasPrefix(base, "0,1,2") {
		t.Fatalf("plan looks sequential: %s", base)
	}
}

func TestPlanErrors(t *testing.T) {
	clip := sha256.Sum256(nil)
	for _, c := range []struct{ samples, n int64 }{{10, 10}, {10, 11}, {0, 0}, {-1, 0}} {
		if _, err := (Plan{}).Index(clip, c.samples, c.n); !errors.Is(err, ErrTooManyVariants) {
			t.Errorf("Index(samples %d, n %d) = %v, want ErrTooManyVariants", c.samples, c.n, err)
		}
	}
	if _, err := (Plan{}).Index(clip, 10, -1); err == nil {
		t.Error("negative n accepted")
	}
}

// refIndex is the documented construction written the plain way, with
// slices and appends, as a verifier would.
func refIndex(seed uint64, clip [32]byte, samples, n int64) int64 {
	msg := append([]byte("benchseal.plan/v1"), byte(seed>>56), byte(seed>>48), byte(seed>>40), byte(seed>>32),
		byte(seed>>24), byte(seed>>16), byte(seed>>8), byte(seed))
	key := sha256.Sum256(append(msg, clip[:]...))
	k := 2
	for int64(1)<<k < samples {
		k++
	}
	lo, hi := k-k/2, k/2
	f := func(i int, v uint64) uint64 {
		in := append(append(key[:0:0], key[:]...), byte(i))
		for s := 56; s >= 0; s -= 8 {
			in = append(in, byte(v>>s))
		}
		d := sha256.Sum256(in)
		var out uint64
		for _, b := range d[:8] {
			out = out<<8 | uint64(b)
		}
		return out
	}
	perm := func(x uint64) uint64 {
		l, r := x>>lo, x%(1<<lo)
		for i := range 8 {
			if i%2 == 0 {
				r ^= f(i, l) % (1 << lo)
			} else {
				l ^= f(i, r) % (1 << hi)
			}
		}
		return l<<lo + r
	}
	x := perm(uint64(n))
	for x >= uint64(samples) {
		x = perm(x)
	}
	return int64(x)
}

type planCase struct {
	seed    uint64
	clip    [32]byte
	samples int64
	n       int64
}

func planCases() []planCase {
	rng := rand.New(rand.NewPCG(1, 2))
	var cs []planCase
	for range 300 {
		var c planCase
		c.seed = rng.Uint64()
		for i := range c.clip {
			c.clip[i] = byte(rng.Uint32())
		}
		c.samples = 1 + rng.Int64N(int64(1)<<(1+rng.IntN(40)))
		c.n = rng.Int64N(c.samples)
		cs = append(cs, c)
	}
	return cs
}

func TestPlanMatchesDocumentedConstruction(t *testing.T) {
	for _, c := range planCases() {
		got, err := Plan{Seed: c.seed}.Index(c.clip, c.samples, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if want := refIndex(c.seed, c.clip, c.samples, c.n); got != want {
			t.Fatalf("%+v: Index = %d, documented construction gives %d", c, got, want)
		}
	}
}

// TestPlanPython re-derives indices with testdata/plan_ref.py, an
// implementation in another language written from the package doc.
func TestPlanPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH")
	}
	cs := planCases()[:60]
	var in strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&in, "%d %x %d %d\n", c.seed, c.clip, c.samples, c.n)
	}
	cmd := exec.Command(py, "testdata/plan_ref.py")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plan_ref.py: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(cs) {
		t.Fatalf("plan_ref.py printed %d lines for %d cases", len(lines), len(cs))
	}
	for i, c := range cs {
		got, _ := Plan{Seed: c.seed}.Index(c.clip, c.samples, c.n)
		if lines[i] != strconv.FormatInt(got, 10) {
			t.Fatalf("%+v: Go %d, Python %s", c, got, lines[i])
		}
	}
}
