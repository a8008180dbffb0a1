package schedule

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/benchseal/benchseal/schemas"
)

// Ramp strategies (run --ramp-up), vLLM bench serve's names.
const (
	RampLinear      = "linear"
	RampExponential = "exponential"
)

// Ramp is an open-loop level's warm-up ramp (run --ramp-up): the warm-up
// phase's arrivals come at a rate that climbs from Start to the level's
// rate over Duration, linearly or exponentially, so that the server
// reaches the measured rate gradually; the measured phase then offers the
// level's rate as without a ramp.
type Ramp struct {
	Strategy string        // RampLinear or RampExponential
	Start    float64       // requests per second at the ramp's start
	Duration time.Duration // from the start rate to the level's
}

// Check says whether r can ramp up to rate.
func (r Ramp) Check(rate float64) error {
	switch r.Strategy {
	case RampLinear:
		if !(r.Start >= 0) {
			return fmt.Errorf("ramp-up start rate %v: must be at least 0", r.Start)
		}
	case RampExponential:
		if !(r.Start > 0) {
			return fmt.Errorf("ramp-up start rate %v: an exponential ramp starts above 0", r.Start)
		}
	default:
		return fmt.Errorf("ramp-up strategy %q: want %s or %s", r.Strategy, RampLinear, RampExponential)
	}
	if r.Start >= rate || math.IsInf(r.Start, 0) {
		return fmt.Errorf("ramp-up start rate %v: must be below the level's rate (%v req/s)", r.Start, rate)
	}
	if r.Duration <= 0 {
		return fmt.Errorf("ramp-up duration %v: must be positive", r.Duration)
	}
	return nil
}

// integral is Λ(t), the arrivals the ramp to rate expects by t seconds
// after its start.
func (r Ramp) integral(rate, t float64) float64 {
	d := r.Duration.Seconds()
	if r.Strategy == RampExponential {
		lq := math.Log(rate / r.Start)
		return r.Start * d * math.Expm1(t*lq/d) / lq
	}
	return r.Start*t + (rate-r.Start)*t*t/(2*d)
}

// at is Λ⁻¹(u): the time by which the ramp to rate expects u arrivals.
func (r Ramp) at(rate, u float64) float64 {
	d := r.Duration.Seconds()
	if r.Strategy == RampExponential {
		lq := math.Log(rate / r.Start)
		return d * math.Log1p(u*lq/(r.Start*d)) / lq
	}
	// The root of (rate−Start)/(2d)·t² + Start·t − u = 0, in the form
	// that stays exact when Start is 0.
	return 2 * u / (r.Start + math.Sqrt(r.Start*r.Start+2*(rate-r.Start)*u/d))
}

// Requests is the number of warm-ups the ramp to rate sends: the arrivals
// it expects over its duration, Λ(Duration), rounded, at least 1.
func (r Ramp) Requests(rate float64) int {
	return max(1, int(math.Round(r.integral(rate, r.Duration.Seconds()))))
}

// RampOffsets is the planned offset of each of n warm-ups on ramp r up to
// p.Rate, from the warm-up phase's start (the algorithm of the package
// doc, "The ramp"). n is r.Requests(p.Rate) in a run that follows its
// plan; any n > 0 derives.
func RampOffsets(p Params, r Ramp, n int) ([]time.Duration, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if err := r.Check(p.Rate); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("%d warm-ups: a ramp sends at least 1", n)
	}
	// Unit-rate arrivals u_1 < ... < u_n (gaps of mean 1), rescaled so
	// that u_n is Λ(Duration), then mapped through Λ⁻¹.
	u := make([]float64, n)
	if math.IsInf(p.Burstiness, 1) {
		for i := range u {
			u[i] = float64(i + 1)
		}
	} else {
		g := gen{rand.NewChaCha8(rampKey(p, r, n))}
		t := 0.0
		for i := range u {
			t += g.gamma(p.Burstiness) / p.Burstiness
			u[i] = t
		}
	}
	f := r.integral(p.Rate, r.Duration.Seconds()) / u[n-1]
	out := make([]time.Duration, n)
	for i, v := range u {
		out[i] = time.Duration(math.Round(r.at(p.Rate, v*f) * 1e9))
	}
	return out, nil
}

const rampDomain = "benchseal/schedule/ramp2\x00" // 25 bytes

func rampKey(p Params, r Ramp, n int) [32]byte {
	b := keyPrefix(rampDomain, p, n)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Start))
	b = binary.LittleEndian.AppendUint64(b, uint64(r.Duration.Nanoseconds()))
	b = append(b, r.Strategy...)
	return sha256.Sum256(b)
}

// RampFromProtocol is the warm-up ramp run.json records (nil when none).
func RampFromProtocol(pr schemas.Protocol) (*Ramp, error) {
	ru := pr.RampUp
	if ru == nil {
		return nil, nil
	}
	d := time.Duration(math.Round(ru.DurationS * 1e9))
	r := &Ramp{Strategy: ru.Strategy, Start: ru.StartRPS, Duration: d}
	for _, rate := range pr.RequestRates {
		if err := r.Check(rate); err != nil {
			return nil, err
		}
	}
	return r, nil
}
