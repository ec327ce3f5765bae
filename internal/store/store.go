// Package store keeps results over time: every result document a command
// publishes, in an SQLite file through a pure-Go driver (the binary stays
// static). Each document is kept whole (so that it can be exported as it
// was written); a run's headline figures, its operations with their
// histograms and its per-second series also get rows of their own, for a
// history to filter and trend. One transaction per document: a killed
// writer leaves nothing half-written.
package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/pkg/result"
)

// SchemaVersion is the store schema this tairbench writes and reads; a
// store of a newer one is refused with its version named.
const SchemaVersion = 2

// Store is an open results store.
type Store struct {
	db *sql.DB
	// path names the store in messages (a URL without its password).
	path string
	d    dialect
}

// Open opens (creating it if need be) the store at addr, an SQLite file
// or a postgres:// URL, and brings its schema to SchemaVersion. A file
// that is not an SQLite database, a database that cannot be reached, or a
// store of a newer schema is refused.
func Open(ctx context.Context, addr string) (*Store, error) {
	if addr == "" {
		return nil, errors.New("store: no path")
	}
	db, d, name, err := openDB(addr)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if d.name == "postgres" {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := db.PingContext(pctx)
		cancel()
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("store %s: cannot reach PostgreSQL: %s", name, oneLine(err))
		}
	}
	s := &Store{db: db, path: name, d: d}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// Name is how messages name the store: its path, or its URL without
// the password.
func (s *Store) Name() string { return s.path }

// oneLine is err's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// OpenExisting opens the store at path, which must exist: for reading
// back, where a mistyped path must not make an empty store.
func OpenExisting(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("no store: give --store FILE or set TAIRBENCH_STORE")
	}
	if !strings.Contains(path, "://") {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
	}
	return Open(ctx, path)
}

// looksLikeSQLite refuses a file that exists, is not empty and does not
// start as an SQLite database does.
func looksLikeSQLite(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := f.Read(head)
	if n > 0 && !bytes.Equal(head[:n], []byte("SQLite format 3\x00")[:n]) || n > 0 && n < 16 {
		return fmt.Errorf("store %s: not an SQLite database (nothing written)", path)
	}
	return nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// migrate applies the migrations the store lacks, in one transaction.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	defer func() { _ = tx.Rollback() }()
	if s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return fmt.Errorf("store %s: %w", s.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("store %s: not a usable %s database: %w", s.path, s.d.name, err)
	}
	version := 0
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("store %s: %w", s.path, err)
	default:
		if version, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("store %s: schema version %q is not a number", s.path, v)
		}
	}
	if version > SchemaVersion {
		return fmt.Errorf("store %s has schema version %d, written by a newer tairbench; this one reads up to %d", s.path, version, SchemaVersion)
	}
	for i := version; i < SchemaVersion; i++ {
		if _, err := tx.ExecContext(ctx, s.d.migrations[i]); err != nil {
			return fmt.Errorf("store %s: migration to version %d: %w", s.path, i+1, err)
		}
		if then := migrationSteps[i+1]; then != nil {
			if err := then(ctx, tx, s.d); err != nil {
				return fmt.Errorf("store %s: migration to version %d: %w", s.path, i+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, s.d.bind(`INSERT INTO meta(key, value) VALUES('schema_version', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`), strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	return tx.Commit()
}

// Stored is where Put kept a document.
type Stored struct {
	// ID is the document's id.
	ID int64
	// Shard is the run's shard ("1/3"), when it is one.
	Shard string
	// Merged is the id of the run its shards made, once the last shard is
	// in (0 before).
	Merged int64
	// Note says why a shard is not merged, when it will not be.
	Note string
}

// String says where the document went: "12", "12 (shard 2/3; all 3 shards
// in: merged as 13)".
func (st Stored) String() string {
	s := strconv.FormatInt(st.ID, 10)
	switch {
	case st.Shard == "":
	case st.Merged != 0:
		_, n, _ := strings.Cut(st.Shard, "/")
		s += fmt.Sprintf(" (shard %s; all %s shards in: merged as %d)", st.Shard, n, st.Merged)
	case st.Note != "":
		s += fmt.Sprintf(" (shard %s; %s)", st.Shard, st.Note)
	default:
		s += fmt.Sprintf(" (shard %s; merged when all its shards are in)", st.Shard)
	}
	return s
}

// Put stores doc with tags (the user's k=v) in one transaction. A run
// that is a shard of a load from several clients joins its group (the
// shards that share its workload, shard count, --start-at and tags); the
// last shard in also stores the merged run (resultset.Merge), in the same
// transaction.
func (s *Store) Put(ctx context.Context, doc result.Document, tags map[string]string) (Stored, error) {
	st, err := s.put(ctx, doc, tags)
	if err != nil {
		return Stored{}, fmt.Errorf("store %s: %w", s.path, s.d.explain(err))
	}
	return st, nil
}

func (s *Store) put(ctx context.Context, doc result.Document, tags map[string]string) (Stored, error) {
	body, err := json.Marshal(doc)
	if err != nil {
		return Stored{}, fmt.Errorf("encode: %w", err)
	}
	row := summarize(doc)
	tagText, _ := json.Marshal(sortedTags(tags))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Stored{}, err
	}
	defer func() { _ = tx.Rollback() }()
	st := Stored{Shard: row.Shard}
	r, isRun := doc.(*result.Run)
	if isRun && row.Shard != "" {
		if row.Group, st.Note, err = s.joinGroup(ctx, tx, r, row, string(tagText)); err != nil {
			return st, err
		}
	}
	if st.ID, err = s.insertRun(ctx, tx, row, string(tagText), string(body)); err != nil {
		return st, err
	}
	if isRun {
		if err := s.putRunRows(ctx, tx, st.ID, r); err != nil {
			return st, err
		}
	}
	if row.Group != "" {
		if st.Merged, st.Note, err = s.mergeGroup(ctx, tx, row.Group, string(tagText)); err != nil {
			return st, err
		}
	}
	return st, tx.Commit()
}

// insertRun inserts a document's row and returns its id.
func (s *Store) insertRun(ctx context.Context, tx *sql.Tx, row summary, tags, body string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, s.d.bind(`INSERT INTO runs(kind, started_at, stored_at, tool_version, target, server, embedded,
		workload, workload_hash, tags, ops_per_sec, latency_measure, p50_us, p99_us, errors, document, target_kind, target_version,
		shard, shard_group) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id`),
		row.Kind, timeText(row.StartedAt), timeText(time.Now()), row.ToolVersion, row.Target, row.Server, row.Embedded, row.Workload,
		hash(row.Kind+"\x00"+row.Workload), tags, row.OpsPerSec, row.Measure, row.P50US, row.P99US, row.Errors, body,
		row.TargetKind, row.TargetVersion, row.Shard, row.Group).Scan(&id)
	return id, err
}

// putRunRows writes a run's operations and per-second series, many rows
// to a statement.
func (s *Store) putRunRows(ctx context.Context, tx *sql.Tx, id int64, r *result.Run) error {
	ops := make([][]any, len(r.Operations))
	for i, o := range r.Operations {
		ops[i] = []any{id, o.Name, o.Ops, o.Errors, o.OpsPerSec, o.Latency.P50, o.Latency.P99, o.Histogram, o.HistogramCorrected}
	}
	if err := s.insertRows(ctx, tx, "operations", ops); err != nil {
		return err
	}
	secs := make([][]any, len(r.Series))
	for i, iv := range r.Series {
		secs[i] = []any{id, iv.Second, iv.Ops, iv.Errors, iv.OpsPerSec, iv.P50US, iv.P99US}
	}
	return s.insertRows(ctx, tx, "series", secs)
}

// insertRows inserts rows into table, up to 100 rows a statement.
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, table string, rows [][]any) error {
	for len(rows) > 0 {
		n := min(len(rows), 100)
		one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(rows[0])), ",") + ")"
		q := "INSERT INTO " + table + " VALUES " + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
		args := make([]any, 0, n*len(rows[0]))
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, s.d.bind(q), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

func sortedTags(tags map[string]string) map[string]string {
	if tags == nil {
		return map[string]string{}
	}
	return tags
}

// ParseTags reads k=v tags; a tag without "=" or with an empty key is
// refused.
func ParseTags(kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("tag %q: want key=value", kv)
		}
		out[k] = v
	}
	return out, nil
}

// TagsText is tags as k=v, sorted.
func TagsText(tags map[string]string) string {
	keys := slices.Sorted(maps.Keys(tags))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + tags[k]
	}
	return strings.Join(parts, ",")
}
