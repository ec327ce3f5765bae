package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	judge "github.com/tairbench/tairbench/internal/gate"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/pkg/result"
)

// TrendOptions are a trend's figure and window.
type TrendOptions struct {
	// Metric is one of the gate's metrics (qps, p50, p99).
	Metric string
	// Window is how many earlier runs each run is judged against.
	Window int
}

// Trends follows a figure over the runs o selects: one trend per workload
// and kind of target, each run judged against the runs before it as
// 'tairbench gate' judges (change points marked). Shards are left out:
// the run they merged into stands for them.
func Trends(ctx context.Context, o Options, t TrendOptions) ([]report.Trend, error) {
	ms, err := judge.ParseMetrics("--trend", t.Metric)
	switch {
	case err != nil:
		return nil, err
	case len(ms) != 1:
		return nil, fmt.Errorf("--trend %q: want one figure (qps, p50 or p99)", t.Metric)
	case t.Window < 1:
		return nil, fmt.Errorf("--window %d: want 1 or more earlier runs", t.Window)
	case o.Kind != "" && o.Kind != "run":
		return nil, fmt.Errorf("--kind %s: a trend follows benchmark runs (kind run)", o.Kind)
	}
	f, err := o.filter(time.Now())
	if err != nil {
		return nil, err
	}
	if o.Kind == "" {
		f.Where = append(f.Where, store.Runs)
	}
	st, err := o.open(ctx)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := st.List(ctx, f)
	if err != nil {
		return nil, err
	}
	var order []string
	groups := map[string][]store.Row{}
	for _, r := range rows {
		if r.Shard != "" {
			continue
		}
		key := r.WorkloadHash + "\x00" + r.TargetKind
		if _, seen := groups[key]; !seen {
			order = append(order, key)
		}
		groups[key] = append(groups[key], r)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("no stored run matches in %s", st.Name())
	}
	out := make([]report.Trend, 0, len(order))
	for _, key := range order {
		tr, err := trendOf(ctx, st, groups[key], ms[0], t.Window)
		if err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, nil
}

// trendOf is one group's trend.
func trendOf(ctx context.Context, st *store.Store, rows []store.Row, m judge.Metric, window int) (report.Trend, error) {
	runs := make([]*result.Run, len(rows))
	for i, r := range rows {
		doc, err := st.Get(ctx, r.ID)
		if err != nil {
			return report.Trend{}, err
		}
		run, ok := doc.(*result.Run)
		if !ok {
			return report.Trend{}, errors.New("store: a run's row holds another kind of document")
		}
		runs[i] = run
	}
	label, pts := judge.Trend(runs, m, judge.Defaults, window)
	tr := report.Trend{Title: fmt.Sprintf("%q against %s", rows[0].Workload, rows[0].TargetKindName()), Label: label, Window: window}
	for i, p := range pts {
		tp := report.TrendPoint{ID: rows[i].ID, Started: rows[i].StartedAt, Tags: store.TagsText(rows[i].Tags), Value: p.Value, Lo: p.Lo, Hi: p.Hi}
		if v := p.Verdict; v != nil {
			tp.Judged, tp.Change, tp.Outcome, tp.Reason = true, v.Change, string(v.Outcome), v.Reason
			tp.ChangePoint = v.ChangePoint(judge.Defaults)
		}
		tr.Points = append(tr.Points, tp)
	}
	return tr, nil
}

// WriteTrends prints the trends o and t select, a table each.
func WriteTrends(ctx context.Context, o Options, t TrendOptions, io harness.IO) error {
	trends, err := Trends(ctx, o, t)
	if err != nil {
		return err
	}
	var b strings.Builder
	for i, tr := range trends {
		if i > 0 {
			b.WriteString("\n")
		}
		report.WriteTable(&b, report.TrendTable(tr))
	}
	_, err = fmt.Fprint(io.Out, b.String())
	return err
}
