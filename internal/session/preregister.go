package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/benchseal/benchseal/internal/bench"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/benchseal/benchseal/internal/tlog"
	"github.com/benchseal/benchseal/internal/tsa"
	"github.com/benchseal/benchseal/schemas"
)

// Preregister is a time-stamping authority that dates the run's plan
// before its first request (run --tsa).
type Preregister struct {
	URL string // the authority's time-stamp endpoint
	// Chain is the authority's certificates as given (PEM; --tsa-cert):
	// the token is checked against them before measuring, and they are
	// sealed as timestamps/chain.pem. Nil: the token is taken as it comes
	// and a verifier can check it only against the certificates it
	// carries (unpinned).
	Chain []byte
	// Key is the fingerprint of the key that is to seal the run.
	Key    string
	Client *http.Client // nil: http.DefaultClient with a 30 s limit
	// Log, when set, enters the plan in a Rekor transparency log too.
	Log *Log
}

// Log is a Rekor v1 log the plan's digest, signed by the sealing key, is
// entered in before the first request (run --log).
type Log struct {
	URL string
	// KeyPEM is the log's public key as given (--log-key): the entry must
	// verify with it. Nil: the key the log serves is taken (and sealed),
	// and a verifier checks against it unpinned.
	KeyPEM []byte
	// Sign signs the plan with the sealing key; PublicPEM is that key's
	// public half.
	Sign      func([]byte) ([]byte, error)
	PublicPEM []byte
}

// PreregisterError is an authority that did not date the plan, or a log
// that did not enter it: nothing was measured.
type PreregisterError struct {
	URL string
	Err error
	Log bool // the transparency log failed, not the authority
}

func (e *PreregisterError) Error() string {
	what := "time-stamping the plan"
	if e.Log {
		what = "entering the plan in the log"
	}
	return fmt.Sprintf("%s at %s: %v (nothing was measured)", what, fingerprint.Redact(e.URL), e.Err)
}
func (e *PreregisterError) Unwrap() error { return e.Err }

func (p *Preregister) client() *http.Client {
	if p.Client != nil {
		return p.Client
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// Hooks write plan.json and its token: the Session makes them its last
// BeforeSweep hook, after every capture, so that the plan's time is as
// close to the first request as it can be.
func (p *Preregister) Hooks() bench.Hooks {
	return bench.Hooks{BeforeSweep: func(ctx context.Context, d *bench.Dir) error {
		plan := schemas.PlanOf(d.Run, p.Key, fingerprint.Redact(p.URL), time.Now())
		b, err := json.MarshalIndent(plan, "", "  ")
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if err := newfile.Write(filepath.Join(d.Path, schemas.PlanFile), b, 0o644); err != nil {
			return err
		}
		tsr, err := tsa.Stamp(ctx, p.client(), p.URL, b)
		if err != nil {
			return &PreregisterError{URL: p.URL, Err: err}
		}
		if p.Chain != nil {
			if _, err := CheckToken(tsr, b, p.Chain); err != nil {
				return &PreregisterError{URL: p.URL, Err: fmt.Errorf("its token does not verify against the chain given: %w", err)}
			}
		}
		dir := filepath.Join(d.Path, filepath.FromSlash(filepath.Dir(schemas.PlanToken)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := newfile.Write(filepath.Join(d.Path, filepath.FromSlash(schemas.PlanToken)), tsr, 0o644); err != nil {
			return err
		}
		if p.Chain != nil {
			if err := newfile.Write(filepath.Join(d.Path, filepath.FromSlash(schemas.TSAChain)), p.Chain, 0o644); err != nil {
				return err
			}
		}
		// The variants are drawn from the token from here on: no request
		// can be made before the plan was stamped and still re-derive.
		planSeed := d.Run.Seed
		d.Run.PlanSeed, d.Run.Seed = &planSeed, schemas.TokenSeed(planSeed, tsr)
		if p.Log != nil {
			return p.enter(ctx, d.Path, b)
		}
		return nil
	}}
}

// enter enters the plan in the log and writes the entry and the log's key.
func (p *Preregister) enter(ctx context.Context, dir string, plan []byte) error {
	l := p.Log
	fail := func(err error) error { return &PreregisterError{URL: l.URL, Err: err, Log: true} }
	key := l.KeyPEM
	if key == nil {
		var err error
		if key, err = tlog.PublicKey(ctx, p.client(), l.URL); err != nil {
			return fail(err)
		}
	}
	sig, err := l.Sign(plan)
	if err != nil {
		return fail(err)
	}
	entry, err := tlog.Submit(ctx, p.client(), l.URL, plan, sig, l.PublicPEM, key)
	if err != nil {
		return fail(err)
	}
	if err := newfile.Write(filepath.Join(dir, filepath.FromSlash(schemas.LogEntry)), append(entry, '\n'), 0o644); err != nil {
		return err
	}
	return newfile.Write(filepath.Join(dir, filepath.FromSlash(schemas.LogKey)), key, 0o644)
}

// CheckToken verifies a TimeStampResp over data against a PEM chain.
func CheckToken(tsr, data, chainPEM []byte) (*tsa.Token, error) {
	certs, err := tsa.ParseChain(chainPEM)
	if err != nil {
		return nil, err
	}
	roots, inter := tsa.Chain(certs)
	return tsa.Verify(tsr, data, roots, inter)
}

// TimestampError is an authority that did not date the seal: nothing was
// written.
type TimestampError struct {
	URL string
	Err error
}

func (e *TimestampError) Error() string {
	return fmt.Sprintf("time-stamping the seal at %s: %v", fingerprint.Redact(e.URL), e.Err)
}
func (e *TimestampError) Unwrap() error { return e.Err }

// SealTimestamp is bundle.SealOptions.Timestamp for an authority: a token
// over the envelope, checked against chainPEM when one is given; its
// errors are *TimestampError.
func SealTimestamp(url string, chainPEM []byte, client *http.Client) func(context.Context, []byte) ([]byte, error) {
	p := &Preregister{URL: url, Chain: chainPEM, Client: client}
	return func(ctx context.Context, envelope []byte) ([]byte, error) {
		tsr, err := tsa.Stamp(ctx, p.client(), url, envelope)
		if err != nil {
			return nil, &TimestampError{URL: url, Err: err}
		}
		if chainPEM != nil {
			if _, err := CheckToken(tsr, envelope, chainPEM); err != nil {
				return nil, &TimestampError{URL: url, Err: fmt.Errorf("its token does not verify against the chain given: %w", err)}
			}
		}
		return tsr, nil
	}
}
