package bench

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"time"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// realtime is the plan's streaming rule, task.DefaultRealtimeRule where
// it names none.
func (p Plan) realtime() schemas.Realtime {
	if p.Realtime != nil {
		return *p.Realtime
	}
	return task.DefaultRealtimeRule
}

// session runs j as a session of a Sessioner task (realtime): the
// record's start is the dial's, its first byte the first event with text,
// its end the final event's (or the failure's); its text the session's
// timeline, kept on a failure too.
func (r *runner) session(ctx context.Context, ti int, ss task.Sessioner, j *job, rec *schemas.Record) (string, bool) {
	anchor := r.d.Anchor
	now := func() int64 { return time.Since(anchor).Nanoseconds() }
	t := r.plan.Targets[ti]
	var h http.Header
	if r.auth != nil {
		h = http.Header{"Authorization": r.auth}
	}
	req := &task.SessionRequest{
		URL: r.urls[ti], Header: h, Client: r.client[ti],
		Target: task.Target{Model: t.Model, Fields: t.Fields, Stream: true},
		Audio:  j.s, DataOffset: j.clip.WAV.DataOffset, DataSize: j.clip.WAV.DataSize, Rate: j.clip.WAV.Format.SampleRate,
		Rule: r.plan.realtime(), Now: now, SleepUntil: sleepUntil(anchor),
		OnText: func(at int64) { rec.FirstByteNs = at },
	}
	rec.StartNs = now()
	text, id, err := ss.Session(ctx, req)
	rec.EndNs = now()
	rec.ServerRequestID = id
	if err != nil {
		var se *task.SessionError
		rec.ErrorClass, rec.Error = classify(ctx, err), err.Error()
		if errors.As(err, &se) {
			rec.ErrorClass = se.Class
		}
		rec.Text = text
		return "", false
	}
	rec.Status = task.SuccessStatus(r.task)
	return text, true
}

// sleepUntil is a session's pacer: a Go timer to within coarseMargin of
// the deadline, the rest in nanosleep(2) (sleepFine), as the open loop's
// dispatcher paces its sends.
func sleepUntil(anchor time.Time) func(ctx context.Context, ns int64) error {
	return func(ctx context.Context, ns int64) error {
		deadline := anchor.Add(time.Duration(ns))
		if d := time.Until(deadline); d > coarseMargin {
			t := time.NewTimer(d - coarseMargin)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
		if d := time.Until(deadline); d > 0 {
			runtime.Gosched()
			if d = time.Until(deadline); d > 0 {
				sleepFine(d)
			}
		}
		return ctx.Err()
	}
}
