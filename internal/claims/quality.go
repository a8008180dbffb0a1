package claims

import (
	"fmt"

	"github.com/benchseal/benchseal/internal/task"
	"github.com/benchseal/benchseal/schemas"
)

// WithQuality makes Compute use q's metric (the runner passes the task it
// ran). Compute refuses a run whose task is not q.Name(). Without it,
// Compute takes the metric of the run's task, task.ForRun.
func WithQuality(q task.Quality) Option { return func(o *options) { o.quality = q } }

// qualityFor picks the metric of run's task.
func (o *options) qualityFor(run schemas.Run) (task.Quality, error) {
	if o.quality == nil {
		return task.ForRun(&run)
	}
	if name := task.NameOf(&run); o.quality.Name() != name {
		return nil, fmt.Errorf("the run's task is %q, but its claims were asked of task %q", name, o.quality.Name())
	}
	return o.quality, nil
}
