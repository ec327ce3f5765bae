package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	Tags        map[string]string
	OpsPerSec   float64
	// Measure names the latency P50US and P99US are ("latency from the
	// intended start" or "latency from the send"); "" when the document
	// has no single headline.
	Measure      string
	P50US, P99US float64
	Errors       int64
}

// Filter selects stored documents: all of Tags, started at or after Since,
// whose schema starts with Kind and whose workload contains Workload (each
// when set); the most recent Limit (0: all).
type Filter struct {
	Tags     map[string]string
	Since    time.Time
	Kind     string
	Workload string
	Limit    int
}

// List returns the stored documents f selects, oldest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Row, error) {
	q := `SELECT id, kind, started_at, tool_version, target, server, embedded, workload, tags, ops_per_sec, latency_measure,
		p50_us, p99_us, errors FROM runs WHERE 1=1`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND started_at >= ?`
		args = append(args, f.Since.UTC().Format(time.RFC3339Nano))
	}
	if f.Kind != "" {
		q += ` AND substr(kind, 1, length(?)) = ?`
		args = append(args, f.Kind, f.Kind)
	}
	if f.Workload != "" {
		q += ` AND instr(workload, ?) > 0`
		args = append(args, f.Workload)
	}
	for k, v := range f.Tags {
		q += ` AND json_extract(tags, ?) = ?`
		args = append(args, "$."+jsonKey(k), v)
	}
	q += ` ORDER BY started_at DESC, id DESC`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var started, tags string
		if err := rows.Scan(&r.ID, &r.Kind, &started, &r.ToolVersion, &r.Target, &r.Server, &r.Embedded, &r.Workload, &tags,
			&r.OpsPerSec, &r.Measure, &r.P50US, &r.P99US, &r.Errors); err != nil {
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
	err := s.db.QueryRowContext(ctx, `SELECT document FROM runs WHERE id = ?`, id).Scan(&body)
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
	StartedAt                                            time.Time
	Embedded                                             bool
	OpsPerSec, P50US, P99US                              float64
	Errors                                               int64
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
		}
	}
	s.Workload = r.Command
	l, m := r.Totals.Headline()
	s.Measure, s.P50US, s.P99US = m.Label(), l.P50, l.P99
	s.OpsPerSec, s.Errors = r.Totals.OpsPerSec, r.Totals.Errors
	return s
}
