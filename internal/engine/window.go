package engine

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/stats"
)

// drain reads what a window pipeline still has in flight after the loop
// ended (never after an interruption), within the run's grace, and counts
// it as completed after the run's end.
func (l *loop) drain() {
	d, ok := l.w.(Drainer)
	r := l.r
	if !ok || r.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.grace())
	defer cancel()
	l.st = Step{}
	err := d.Drain(ctx, &l.st)
	t1 := time.Now()
	l.rec.Late(l.st.Ops)
	if l.st.Failed > 0 {
		l.rec.Error(t1, stats.Reply, l.st.Err, l.st.Failed)
	}
	if err != nil && l.st.Lost > 0 {
		l.rec.LostOp(t1, l.st.Op, l.st.Lost)
		l.rec.Error(t1, stats.Lost, []byte("after the run's end: "+err.Error()), l.st.Lost)
	}
}
