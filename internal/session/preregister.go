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
}

// PreregisterError is an authority that did not date the plan: nothing
// was measured.
type PreregisterError struct {
	URL string
	Err error
}

func (e *PreregisterError) Error() string {
	return fmt.Sprintf("time-stamping the plan at %s: %v (nothing was measured)", fingerprint.Redact(e.URL), e.Err)
}
func (e *PreregisterError) Unwrap() error { return e.Err }

func (p *Preregister) client() *http.Client {
	if p.Client != nil {
		return p.Client
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// preregisterHooks writes plan.json and its token as the last thing
// before the sweep, after every capture, so that the plan's time is as
// close to the first request as it can be.
func (s *Session) preregisterHooks() bench.Hooks {
	p := s.cfg.Preregister
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
		return nil
	}}
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
