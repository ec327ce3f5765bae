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
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go

	"github.com/tairbench/tairbench/pkg/result"
)

// SchemaVersion is the store schema this tairbench writes and reads; a
// store of a newer one is refused with its version named.
const SchemaVersion = 2

// migrations bring a store from version i to i+1 (migrations[i]).
var migrations = []string{
	`CREATE TABLE runs (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		kind TEXT NOT NULL,
		started_at TEXT NOT NULL,
		stored_at TEXT NOT NULL,
		tool_version TEXT NOT NULL,
		target TEXT NOT NULL,
		server TEXT NOT NULL,
		embedded INTEGER NOT NULL,
		workload TEXT NOT NULL,
		workload_hash TEXT NOT NULL,
		tags TEXT NOT NULL,
		ops_per_sec REAL,
		latency_measure TEXT NOT NULL,
		p50_us REAL,
		p99_us REAL,
		errors INTEGER,
		document TEXT NOT NULL
	);
	CREATE INDEX runs_started ON runs(started_at);
	CREATE INDEX runs_workload ON runs(workload_hash);
	CREATE TABLE operations (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		name TEXT NOT NULL,
		ops INTEGER NOT NULL,
		errors INTEGER NOT NULL,
		ops_per_sec REAL,
		p50_us REAL,
		p99_us REAL,
		histogram TEXT NOT NULL,
		histogram_corrected TEXT NOT NULL
	);
	CREATE TABLE series (
		run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		second INTEGER NOT NULL,
		ops INTEGER NOT NULL,
		errors INTEGER NOT NULL,
		ops_per_sec REAL,
		p50_us REAL,
		p99_us REAL
	);`,
	// 2: the target's kind ("embedded", or the name its server gave) and
	// version get columns, for a history or gate to select on.
	`ALTER TABLE runs ADD COLUMN target_kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN target_version TEXT NOT NULL DEFAULT '';
	UPDATE runs SET
		target_kind = CASE
			WHEN json_extract(document, '$.config.target.in_process') OR json_extract(document, '$.config.target.server.embedded') THEN 'embedded'
			ELSE coalesce(json_extract(document, '$.config.target.server.name'), '') END,
		target_version = coalesce(json_extract(document, '$.config.target.server.version'), '');
	CREATE INDEX runs_kind_workload ON runs(kind, workload_hash, target_kind, started_at);`,
}

// Store is an open results store.
type Store struct {
	db   *sql.DB
	path string
}

// Open opens (creating it if need be) the store at path and brings its
// schema to SchemaVersion. A file that is not an SQLite database, a store
// of a newer schema, or a PostgreSQL address (not built yet) is refused.
func Open(ctx context.Context, path string) (*Store, error) {
	switch {
	case path == "":
		return nil, errors.New("store: no path")
	case strings.Contains(path, "://"):
		return nil, fmt.Errorf("store %s: only an SQLite file is supported yet (a PostgreSQL store is not built)", path)
	}
	if err := looksLikeSQLite(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

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
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("store %s: not a usable SQLite database: %w", s.path, err)
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
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("store %s: migration to version %d: %w", s.path, i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES('schema_version', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("store %s: %w", s.path, err)
	}
	return tx.Commit()
}

// Put stores doc with tags (the user's k=v) in one transaction and
// returns its id.
func (s *Store) Put(ctx context.Context, doc result.Document, tags map[string]string) (int64, error) {
	body, err := json.Marshal(doc)
	if err != nil {
		return 0, fmt.Errorf("store: encode: %w", err)
	}
	row := summarize(doc)
	tagText, _ := json.Marshal(sortedTags(tags))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store %s: %w", s.path, err)
	}
	defer func() { _ = tx.Rollback() }()
	res, err := tx.ExecContext(ctx, `INSERT INTO runs(kind, started_at, stored_at, tool_version, target, server, embedded, workload,
		workload_hash, tags, ops_per_sec, latency_measure, p50_us, p99_us, errors, document, target_kind, target_version)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		row.Kind, row.StartedAt.UTC().Format(time.RFC3339Nano), time.Now().UTC().Format(time.RFC3339Nano), row.ToolVersion, row.Target,
		row.Server, row.Embedded, row.Workload, hash(row.Kind+"\x00"+row.Workload), string(tagText), row.OpsPerSec, row.Measure,
		row.P50US, row.P99US, row.Errors, string(body), row.TargetKind, row.TargetVersion)
	if err != nil {
		return 0, fmt.Errorf("store %s: %w", s.path, err)
	}
	id, _ := res.LastInsertId()
	if r, ok := doc.(*result.Run); ok {
		if err := putRunRows(ctx, tx, id, r); err != nil {
			return 0, fmt.Errorf("store %s: %w", s.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store %s: %w", s.path, err)
	}
	return id, nil
}

// putRunRows writes a run's operations and per-second series.
func putRunRows(ctx context.Context, tx *sql.Tx, id int64, r *result.Run) error {
	for _, o := range r.Operations {
		l := o.Latency
		if _, err := tx.ExecContext(ctx, `INSERT INTO operations VALUES(?,?,?,?,?,?,?,?,?)`, id, o.Name, o.Ops, o.Errors, o.OpsPerSec,
			l.P50, l.P99, o.Histogram, o.HistogramCorrected); err != nil {
			return err
		}
	}
	for _, iv := range r.Series {
		if _, err := tx.ExecContext(ctx, `INSERT INTO series VALUES(?,?,?,?,?,?,?)`, id, iv.Second, iv.Ops, iv.Errors, iv.OpsPerSec,
			iv.P50US, iv.P99US); err != nil {
			return err
		}
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
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + tags[k]
	}
	return strings.Join(parts, ",")
}
