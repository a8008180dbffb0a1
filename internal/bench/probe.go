package bench

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/benchseal/benchseal/internal/claims"
	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/perturb"
	"github.com/benchseal/benchseal/schemas"
)

// The active cache probe (issue 16) runs after the sweep, target by
// target, one request at a time: after the sweep so that it takes nothing
// from the sweep's evidence (the sweep's variants never hit what the probe
// leaves in a cache, and a server that breaks under the probe leaves the
// sweep whole), and so that check 7 can hold it to "after the last step".
// Its records go to records/<target>/probe-1.jsonl, phase probe: first
// claims.ProbeWarmup warm-ups (the clip's own bytes, which prime a cache,
// then one variant), then Plan.CacheProbe pairs interleaved, the order
// within a pair alternating: the first clip's identical bytes
// (sample_index -1) and a distinct 1-LSB variant of it, numbered after
// every variant the sweep sent.

// probe runs the cache probe of target ti.
func (r *runner) probe(ctx context.Context, ti int) error {
	p := r.plan
	t := p.Targets[ti]
	c := &p.Corpus[0]
	n := claims.ProbeWarmup + 2*p.CacheProbe
	repeat := make([]bool, n)
	repeat[0] = true
	for i := range p.CacheProbe {
		repeat[claims.ProbeWarmup+2*i+i%2] = true
	}
	jobs := make([]job, n)
	for seq := range jobs {
		j := &jobs[seq]
		j.clip = c
		if repeat[seq] {
			j.variant, j.sha = -1, hex.EncodeToString(c.SHA256[:])
			continue
		}
		if r.inputs[c.SHA256] == nil {
			if r.inputs == nil {
				r.inputs = map[[32]byte]task.Input{}
			}
			in, err := r.task.Input(c.ID, c.WAV.Bytes)
			if err != nil {
				return fmt.Errorf("clip %q: %w", c.ID, err)
			}
			r.inputs[c.SHA256] = in
		}
		j.in = r.inputs[c.SHA256]
		j.variant = r.used[c.SHA256]
		r.used[c.SHA256]++
		idx, err := perturb.Plan{Seed: p.Seed}.Index(c.SHA256, j.in.Positions(), j.variant)
		if err == nil {
			j.v, err = j.in.Variant(idx)
		}
		if err != nil {
			return fmt.Errorf("clip %q variant %d: %w", c.ID, j.variant, err)
		}
		j.sha = hex.EncodeToString(j.v.SHA256[:])
	}
	rf, err := createRecordFile(filepath.Join(r.d.Path, filepath.FromSlash(schemas.ProbeRecordsPath(t.Name, 1))))
	if err != nil {
		return err
	}
	wk := newWorker(0)
	reqBase := context.WithoutCancel(ctx)
	for seq := range jobs {
		if ctx.Err() != nil || r.stopped(t.Name) {
			break
		}
		var rec schemas.Record
		rec.RequestID = RequestID(p.Seed, t.Name, 1, 0, seq)
		r.do(reqBase, ti, wk, &jobs[seq], &rec)
		rec.Target, rec.Concurrency, rec.Repeat, rec.Phase, rec.Seq, rec.Worker = t.Name, 1, 1, schemas.PhaseProbe, seq, 0
		rf.write(&rec)
	}
	if err := rf.close(); err != nil {
		return fmt.Errorf("write records of %s's cache probe: %w", t.Name, err)
	}
	return nil
}
