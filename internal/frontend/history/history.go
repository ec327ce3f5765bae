// Package history is 'tairbench history' and 'tairbench store': the
// results store looked back on (a list of runs, filtered), result files
// imported into it, and stored results exported as the files they were.
package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/pkg/result"
)

// Options are the store and what to select in it.
type Options struct {
	// Store is the results store (an SQLite file).
	Store string
	// Tags (k=v) a run must carry; Since how far back ("30d", "12h", or a
	// date); Kind a schema's short name ("run", "bitmap", ...); Workload a
	// part of the command; Limit the most recent runs to list.
	Tags     []string
	Where    []string
	Since    string
	Kind     string
	Workload string
	Limit    int
}

func (o Options) open(ctx context.Context) (*store.Store, error) {
	return store.OpenExisting(ctx, o.Store)
}

// filter is the store's filter for o.
func (o Options) filter(now time.Time) (store.Filter, error) {
	tags, err := store.ParseTags(o.Tags)
	if err != nil {
		return store.Filter{}, err
	}
	f := store.Filter{Where: store.TagConds(tags), Workload: o.Workload, Limit: o.Limit}
	for _, w := range o.Where {
		conds, err := store.ParseWhere(w)
		if err != nil {
			return f, fmt.Errorf("--where: %w", err)
		}
		f.Where = append(f.Where, conds...)
	}
	if o.Kind != "" {
		f.Where = append(f.Where, store.Cond{Key: "kind", Value: o.Kind})
	}
	if o.Since != "" {
		if f.Since, err = since(o.Since, now); err != nil {
			return f, err
		}
	}
	if o.Limit < 0 {
		return f, fmt.Errorf("--limit %d: want 0 (all) or more", o.Limit)
	}
	return f, nil
}

// since reads "30d", "12h", "90m" (back from now) or a date (2026-11-01).
func since(s string, now time.Time) (time.Time, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.AddDate(0, 0, -d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a span back from now (30d, 12h) or a date (2026-11-01)", s)
}

// History lists the runs o selects, oldest first, each with its headline
// latency named.
func History(ctx context.Context, o Options, io harness.IO) error {
	f, err := o.filter(time.Now())
	if err != nil {
		return err
	}
	st, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rows, err := st.List(ctx, f)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		fmt.Fprintf(io.Err, "no stored run matches in %s\n", st.Name())
		return nil
	}
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tstarted (UTC)\tkind\ttarget\tworkload\ttags\tQPS\tp50 ms\tp99 ms\tlatency\terrors\t")
	for _, r := range rows {
		target := r.TargetName()
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.ID, r.StartedAtText(), kindOf(r),
			dash(target), dash(report.Clip(r.Workload, 39)), dash(store.TagsText(r.Tags)), num(r.OpsPerSec, "%.0f"), num(r.P50US/1000, "%.3f"),
			num(r.P99US/1000, "%.3f"), dash(r.Measure), num(float64(r.Errors), "%.0f"))
	}
	return tw.Flush()
}

// Import stores each result file, each in one transaction, tagged.
func Import(ctx context.Context, o Options, files []string, io harness.IO) error {
	if len(files) == 0 {
		return errors.New("no result file to import")
	}
	tags, err := store.ParseTags(o.Tags)
	if err != nil {
		return err
	}
	docs := make([]result.Document, len(files))
	for i, p := range files { // every file read before any is stored
		if docs[i], err = result.ReadFile(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if o.Store == "" {
		return errors.New("no store: give --store FILE or set TAIRBENCH_STORE")
	}
	st, err := store.Open(ctx, o.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	for i, d := range docs {
		stored, err := st.Put(ctx, d, tags)
		if err != nil {
			return fmt.Errorf("%s: %w", files[i], err)
		}
		fmt.Fprintf(io.Err, "%s: stored as %s\n", files[i], stored)
	}
	return nil
}

// Export writes the stored result id to path ("-" standard output), as
// it was written.
func Export(ctx context.Context, o Options, id int64, path string, io harness.IO) error {
	st, err := o.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	doc, err := st.Get(ctx, id)
	if err != nil {
		return err
	}
	return output.WriteDocument(io, path, doc)
}

// kindOf is a row's kind, with a shard's "i/N" or "merged shards" for the
// run its shards made.
func kindOf(r store.Row) string {
	switch {
	case r.Shard != "":
		return r.ShortKind() + " (shard " + r.Shard + ")"
	case r.Group != "":
		return r.ShortKind() + " (merged shards)"
	}
	return r.ShortKind()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func num(v float64, format string) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf(format, v)
}
