package schedule

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// Version is the algorithm's version, recorded in run.json: 2 adds the
// warm-up ramp (the package doc, "The ramp"); a level's own offsets are
// version 1's.
const Version = 2

// Tolerance is how far a recorded planned offset may lie from the derived
// one and still be the same (see the package doc: another libm).
const Tolerance = time.Microsecond

// Params says which schedule: the run's seed, the offered rate (requests
// per second, > 0 and finite), the burstiness (gamma shape, > 0; +Inf:
// constant gaps) and the repeat (1-based).
type Params struct {
	Seed       uint64
	Rate       float64
	Burstiness float64
	Repeat     int
}

// Check says whether p can derive a schedule.
func (p Params) Check() error {
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		return fmt.Errorf("request rate %v: must be a positive, finite number of requests per second", p.Rate)
	}
	if !(p.Burstiness > 0) {
		return fmt.Errorf("burstiness %v: must be positive (1 Poisson, inf constant)", p.Burstiness)
	}
	if p.Repeat < 1 {
		return fmt.Errorf("repeat %d: must be at least 1", p.Repeat)
	}
	return nil
}

// Offsets is the planned send offset of each of n requests from the
// level's start, by the algorithm of the package doc. The last one is
// n/Rate seconds (rounded to the nanosecond).
func Offsets(p Params, n int) ([]time.Duration, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%d requests: must be at least 0", n)
	}
	if n == 0 {
		return nil, nil
	}
	sums := make([]float64, n)
	if math.IsInf(p.Burstiness, 1) {
		for i := range sums {
			sums[i] = float64(i+1) / p.Rate
		}
	} else {
		g := gen{rand.NewChaCha8(key(p, n))}
		scale := 1 / (p.Rate * p.Burstiness)
		t := 0.0
		for i := range sums {
			t += g.gamma(p.Burstiness) * scale
			sums[i] = t
		}
	}
	f := 1.0
	if last := sums[n-1]; last > 0 {
		f = (float64(n) / p.Rate) / last
	}
	out := make([]time.Duration, n)
	for i, s := range sums {
		out[i] = time.Duration(math.Round(s * f * 1e9))
	}
	return out, nil
}

const domain = "benchseal/schedule/v1\x00\x00\x00"

func key(p Params, n int) [32]byte { return sha256.Sum256(keyPrefix(domain, p, n)) }

// keyPrefix is a stream key's domain ‖ seed ‖ R ‖ k ‖ repeat ‖ N.
func keyPrefix(domain string, p Params, n int) []byte {
	b := make([]byte, 0, 96)
	b = append(b, domain...)
	b = binary.LittleEndian.AppendUint64(b, p.Seed)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Rate))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Burstiness))
	b = binary.LittleEndian.AppendUint64(b, uint64(p.Repeat))
	return binary.LittleEndian.AppendUint64(b, uint64(n))
}

type gen struct{ s *rand.ChaCha8 }

// uniform is on (0,1): 53 bits and a half, so ln never sees 0.
func (g gen) uniform() float64 {
	return (float64(g.s.Uint64()>>11) + 0.5) * 0x1p-53
}

func (g gen) normal() float64 {
	u1 := g.uniform()
	u2 := g.uniform()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

func (g gen) gamma(k float64) float64 {
	if k < 1 {
		x := g.gamma(k + 1)
		return x * math.Pow(g.uniform(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := g.normal()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := g.uniform()
		if math.Log(u) < z*z/2+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// FromProtocol is the schedule of level li (0-based) and repeat of an
// open-loop run, as its run.json records it.
func FromProtocol(seed uint64, pr schemas.Protocol, li, repeat int) (Params, error) {
	if li < 0 || li >= len(pr.RequestRates) {
		return Params{}, fmt.Errorf("level %d: run.json lists %d request rates", li+1, len(pr.RequestRates))
	}
	k, err := strconv.ParseFloat(pr.Burstiness, 64)
	if err != nil {
		return Params{}, fmt.Errorf("burstiness %q: %v", pr.Burstiness, err)
	}
	p := Params{Seed: seed, Rate: pr.RequestRates[li], Burstiness: k, Repeat: repeat}
	return p, p.Check()
}
