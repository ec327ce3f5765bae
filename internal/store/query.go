package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tairbench/tairbench/pkg/result"
)

// Row is one stored document as a history lists it.
type Row struct {
	ID          int64
	Kind        string
	StartedAt   time.Time
	ToolVersion string
	Target      string
	Server      string
	Embedded    bool
	Workload    string
	// WorkloadHash identifies the workload (kind and command);
	// TargetKind is "embedded" or the name the server gave ("redis");
	// TargetVersion the version it gave.
	WorkloadHash, TargetKind, TargetVersion string
	// Shard is a shard's "i/N"; Group the key of its shards' group (also
	// on the run they merged into).
	Shard, Group string
	Tags         map[string]string
	OpsPerSec    float64
	// Measure names the latency P50US and P99US are ("latency from the
	// intended start" or "latency from the send"); "" when the document
	// has no single headline.
	Measure      string
	P50US, P99US float64
	Errors       int64
}

// TargetName names the row's target in report.TargetLine's words: its
// address, then "tairbench's embedded server, not Tair" when it was
// ours, or else the server and version it gave.
func (r Row) TargetName() string {
	switch {
	case r.Embedded:
		return r.Target + ": tairbench's embedded server, not Tair"
	case r.Server != "":
		return r.Target + ": " + r.Server
	}
	return r.Target
}

// ShortKind is the row's kind as commands name it: "run", "bitmap", …
func (r Row) ShortKind() string {
	k := strings.TrimPrefix(r.Kind, "tairbench.")
	k, _, _ = strings.Cut(k, "/")
	return k
}

// TargetKindName names the row's kind of target in a sentence:
// "tairbench's embedded server (not Tair)", "redis", "an unnamed target".
func (r Row) TargetKindName() string {
	switch r.TargetKind {
	case "":
		return "an unnamed target"
	case "embedded":
		return "tairbench's embedded server (not Tair)"
	}
	return r.TargetKind
}

// StartedAtText is when the row's run started, in UTC, to the second.
func (r Row) StartedAtText() string { return r.StartedAt.UTC().Format("2006-01-02 15:04:05") }

// Filter selects stored documents: all of Where, started at or after
// Since, whose workload contains Workload (each when set); the most
// recent Limit (0: all).
type Filter struct {
	Where    []Cond
	Since    time.Time
	Workload string
	Limit    int
	// ID, when set, selects that one document.
	ID int64
	// Whole leaves out shards (the runs they merged into stay).
	Whole bool
	// Like, when set, keeps only the whole runs (not shards) of its
	// workload (schema and workload hash) and target kind that started
	// before it (not it).
	Like *Row
}

// Cond is one condition of a selection: Key (see WhereKeys) equals Value
// ("kind" takes a schema's short name: run, bitmap, …).
type Cond struct{ Key, Value string }

// TagConds are conditions on tags, one per key, in key order.
func TagConds(tags map[string]string) []Cond {
	keys := slices.Sorted(maps.Keys(tags))
	out := make([]Cond, len(keys))
	for i, k := range keys {
		out[i] = Cond{Key: "tag." + k, Value: tags[k]}
	}
	return out
}

// Runs is the condition that keeps benchmark runs (tairbench.run).
var Runs = Cond{Key: "kind", Value: "run"}

// WhereKeys are the keys a condition may name; "tag.NAME" names a tag.
var WhereKeys = map[string]string{
	"kind":           "kind",
	"workload":       "workload",
	"target":         "target",
	"target.kind":    "target_kind",
	"target.version": "target_version",
	"tool_version":   "tool_version",
}

// ParseWhere reads conditions joined by "and" ("tag.branch=main and
// target.version=7.0.15"); an unknown key or a condition without "=" is
// refused.
func ParseWhere(s string) ([]Cond, error) {
	var out []Cond
	for _, part := range splitAnd(s) {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("condition %q: want key=value (%s, or tag.NAME)", part, whereKeyList())
		}
		if _, known := WhereKeys[k]; !known && !(strings.HasPrefix(k, "tag.") && len(k) > 4) {
			return nil, fmt.Errorf("condition %q: unknown key %q; want %s, or tag.NAME", part, k, whereKeyList())
		}
		out = append(out, Cond{Key: k, Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// splitAnd splits s at the word "and" (any case) between conditions.
func splitAnd(s string) []string {
	var out, cur []string
	for _, w := range strings.Fields(s) {
		if strings.EqualFold(w, "and") {
			out, cur = append(out, strings.Join(cur, " ")), nil
			continue
		}
		cur = append(cur, w)
	}
	return append(out, strings.Join(cur, " "))
}

func whereKeyList() string {
	ks := make([]string, 0, len(WhereKeys))
	for k := range WhereKeys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// condSQL is c as an SQL condition and its arguments.
func (d dialect) condSQL(c Cond) (string, []any) {
	if name, ok := strings.CutPrefix(c.Key, "tag."); ok {
		cond, key := d.tagCond(name)
		return ` AND ` + cond, []any{key, c.Value}
	}
	if c.Key == "kind" {
		return ` AND kind LIKE ?`, []any{"tairbench." + c.Value + "/%"}
	}
	return ` AND ` + WhereKeys[c.Key] + ` = ?`, []any{c.Value}
}

// List returns the stored documents f selects, oldest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Row, error) {
	q := `SELECT id, kind, started_at, tool_version, target, server, embedded, workload, tags, coalesce(ops_per_sec, 0),
		latency_measure, coalesce(p50_us, 0), coalesce(p99_us, 0), coalesce(errors, 0), workload_hash, target_kind, target_version, shard, shard_group FROM runs WHERE 1=1`
	var args []any
	if f.ID != 0 {
		q += ` AND id = ?`
		args = append(args, f.ID)
	}
	if f.Whole {
		q += ` AND shard = ''`
	}
	for _, c := range f.Where {
		cq, ca := s.d.condSQL(c)
		q, args = q+cq, append(args, ca...)
	}
	if l := f.Like; l != nil {
		q += ` AND kind = ? AND workload_hash = ? AND target_kind = ? AND shard = '' AND (started_at < ? OR started_at = ? AND id < ?)`
		at := timeText(l.StartedAt)
		args = append(args, l.Kind, l.WorkloadHash, l.TargetKind, at, at, l.ID)
	}
	if !f.Since.IsZero() {
		q += ` AND started_at >= ?`
		args = append(args, timeText(f.Since))
	}
	if f.Workload != "" {
		q += ` AND ` + s.d.contains("workload")
		args = append(args, f.Workload)
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.d.bind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var started, tags string
		if err := rows.Scan(&r.ID, &r.Kind, &started, &r.ToolVersion, &r.Target, &r.Server, &r.Embedded, &r.Workload, &tags,
			&r.OpsPerSec, &r.Measure, &r.P50US, &r.P99US, &r.Errors, &r.WorkloadHash, &r.TargetKind, &r.TargetVersion, &r.Shard, &r.Group); err != nil {
			return nil, fmt.Errorf("store %s: %w", s.path, err)
		}
		r.StartedAt, _ = time.Parse(time.RFC3339Nano, started)
		_ = json.Unmarshal([]byte(tags), &r.Tags)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// jsonKey quotes a tag's key for a JSON path.
func jsonKey(k string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(k) + `"`
}

// Get returns the document stored as id, as it was written.
func (s *Store) Get(ctx context.Context, id int64) (result.Document, error) {
	var body string
	err := s.db.QueryRowContext(ctx, s.d.bind(`SELECT document FROM runs WHERE id = ?`), id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store %s: no run %d", s.path, id)
	}
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	return result.Read(strings.NewReader(body))
}

// summary is what a document's row holds besides the document.
type summary struct {
	Kind, ToolVersion, Target, Server, Workload, Measure string
	TargetKind, TargetVersion                            string
	// Shard is a shard's "i/N"; Group the key of its shards' group (also
	// on the run they merged into).
	Shard, Group            string
	StartedAt               time.Time
	Embedded                bool
	OpsPerSec, P50US, P99US float64
	Errors                  int64
}

// summarize reads the row's columns from doc: a run's target, workload
// and headline latency; the kind, start and version of any document.
func summarize(doc result.Document) summary {
	h := doc.Head()
	s := summary{Kind: h.Schema, ToolVersion: h.Version, StartedAt: h.StartedAt}
	r, ok := doc.(*result.Run)
	if !ok {
		return s
	}
	if t := r.Config.Target; t != nil {
		s.Target, s.Embedded = t.Addr, t.NotTair()
		if t.Server != nil {
			s.Server = strings.TrimSpace(t.Server.Name + " " + t.Server.Version)
			s.TargetKind, s.TargetVersion = t.Server.Name, t.Server.Version
		}
		if s.Embedded {
			s.TargetKind = "embedded"
		}
	}
	s.Workload = r.Command
	s.Shard = r.Config.Shard
	l, m := r.Totals.Headline()
	s.Measure, s.P50US, s.P99US = m.Label(), l.P50, l.P99
	s.OpsPerSec, s.Errors = r.Totals.OpsPerSec, r.Totals.Errors
	return s
}
