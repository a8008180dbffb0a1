package bench

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/benchseal/benchseal/internal/claims"
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
// every variant the sweep sent. The Hooks' BeforeProbe and AfterProbe
// bracket it (the recorder scrapes /metrics there), and a ProbeProgress
// prints one line when it ends. One clip, not each in turn: a cache keyed
// by content recognises any clip alike, and one clip keeps both halves'
// latencies alike but for the cache (docs/protocol.md, "Cache probe").

// probe runs the cache probe of target ti.
func (r *runner) probe(ctx context.Context, ti int) error {
	p := r.plan
	t := p.Targets[ti]
	jobs, err := r.newJobs(r.used, claims.ProbeWarmup+2*p.CacheProbe, func(seq int) (int, bool) {
		return 0, !claims.ProbeIsRepeat(seq, p.CacheProbe)
	})
	if err != nil {
		return err
	}
	rf, err := createRecordFile(filepath.Join(r.d.Path, filepath.FromSlash(schemas.ProbeRecordsPath(t.Name, 1))))
	if err != nil {
		return err
	}
	for _, h := range r.cfg.hooks {
		if h.BeforeProbe != nil {
			r.hookErr("before cache probe", h.BeforeProbe(context.WithoutCancel(ctx), &r.d, t.Name))
		}
	}
	wk := newWorker(0)
	reqBase := context.WithoutCancel(ctx)
	recs := make([]schemas.Record, 0, len(jobs))
	for seq := range jobs {
		if ctx.Err() != nil || r.stopped(t.Name) {
			break
		}
		var rec schemas.Record
		rec.RequestID = RequestID(p.Seed, t.Name, 1, 0, seq)
		r.do(reqBase, ti, wk, &jobs[seq], &rec)
		rec.Target, rec.Concurrency, rec.Repeat, rec.Phase, rec.Seq, rec.Worker = t.Name, 1, 1, schemas.PhaseProbe, seq, 0
		rf.write(&rec)
		recs = append(recs, rec)
	}
	if err := rf.close(); err != nil {
		return fmt.Errorf("write records of %s's cache probe: %w", t.Name, err)
	}
	for _, h := range r.cfg.hooks {
		if h.AfterProbe != nil {
			r.hookErr("after cache probe", h.AfterProbe(context.WithoutCancel(ctx), &r.d, t.Name))
		}
	}
	if pp, ok := r.cfg.progress.(ProbeProgress); ok {
		good := 0
		for _, rec := range recs {
			if rec.OK {
				good++
			}
		}
		// The latencies' verdict only: the counters' growth is the
		// claims' (computed from telemetry/probes.jsonl after the run).
		pp.Probe(t.Name, good, len(jobs), claims.ProbeOf(t.Name, recs, nil, p.Seed).Verdict)
	}
	return nil
}
