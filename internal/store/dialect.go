package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	_ "modernc.org/sqlite"             // the "sqlite" driver, pure Go
)

// dialect is what differs between the SQLite and the PostgreSQL store:
// the migrations' DDL, placeholders, and how a tag or a part of a text
// is matched. The queries are written once, with "?" placeholders.
type dialect struct {
	name       string
	migrations []string
	// tagCond is the condition "tag k equals ?" and the argument naming k.
	tagCond func(k string) (string, any)
	// contains is the condition "column contains ?".
	contains func(column string) string
	// lock is run first in the migration's transaction, to keep two
	// processes from migrating at once ("" when the transaction's own
	// lock does).
	lock string
	// forUpdate locks the rows a SELECT reads until the transaction ends
	// ("" when the transaction holds the whole database).
	forUpdate string
	// explain says what a failed write means, where the driver's message
	// does not (nil: the error as it is).
	explain func(error) error
}

var sqlite = dialect{
	name:       "sqlite",
	migrations: sqliteMigrations,
	tagCond: func(k string) (string, any) {
		return `json_extract(tags, ?) = ?`, "$." + jsonKey(k)
	},
	contains: func(column string) string { return `instr(` + column + `, ?) > 0` },
	explain: func(err error) error {
		if strings.Contains(err.Error(), "SQLITE_BUSY") {
			return fmt.Errorf("another writer held it locked for more than %s; nothing written (%w)", busyTimeout, err)
		}
		return err
	},
}

var postgres = dialect{
	name:       "postgres",
	migrations: postgresMigrations,
	tagCond: func(k string) (string, any) {
		return `(tags::jsonb ->> ?) = ?`, k
	},
	contains:  func(column string) string { return `strpos(` + column + `, ?) > 0` },
	lock:      `SELECT pg_advisory_xact_lock(562756)`,
	explain:   func(err error) error { return err },
	forUpdate: ` FOR UPDATE`,
}

// sqliteMigrations bring an SQLite store from version i to i+1.
var sqliteMigrations = []string{
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
	// version get columns, and a shard its "i/N" and the key of its group
	// (shard_groups: the shards of one run, merged when all are in); times are written to the nanosecond, fixed
	// width, so that they sort as text (normalizeTimes).
	`ALTER TABLE runs ADD COLUMN target_kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN target_version TEXT NOT NULL DEFAULT '';
	UPDATE runs SET
		target_kind = CASE
			WHEN json_extract(document, '$.config.target.in_process') OR json_extract(document, '$.config.target.server.embedded') THEN 'embedded'
			ELSE coalesce(json_extract(document, '$.config.target.server.name'), '') END,
		target_version = coalesce(json_extract(document, '$.config.target.server.version'), '');
	ALTER TABLE runs ADD COLUMN shard TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN shard_group TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_shard_group ON runs(shard_group);
	CREATE TABLE shard_groups (key TEXT PRIMARY KEY, shards INTEGER NOT NULL, merged_id BIGINT);
	UPDATE runs SET shard = coalesce(json_extract(document, '$.config.shard'), '');
	CREATE INDEX runs_kind_workload ON runs(kind, workload_hash, target_kind, started_at);`,
}

// postgresMigrations are sqliteMigrations in PostgreSQL's types and
// JSON functions.
var postgresMigrations = []string{
	strings.NewReplacer("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY", "embedded INTEGER", "embedded BOOLEAN",
		"INTEGER", "BIGINT", "REAL", "DOUBLE PRECISION").Replace(sqliteMigrations[0]),
	`ALTER TABLE runs ADD COLUMN target_kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN target_version TEXT NOT NULL DEFAULT '';
	UPDATE runs SET
		target_kind = CASE
			WHEN coalesce((document::jsonb #>> '{config,target,in_process}')::boolean, false)
				OR coalesce((document::jsonb #>> '{config,target,server,embedded}')::boolean, false) THEN 'embedded'
			ELSE coalesce(document::jsonb #>> '{config,target,server,name}', '') END,
		target_version = coalesce(document::jsonb #>> '{config,target,server,version}', '');
	ALTER TABLE runs ADD COLUMN shard TEXT NOT NULL DEFAULT '';
	ALTER TABLE runs ADD COLUMN shard_group TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_shard_group ON runs(shard_group);
	CREATE TABLE shard_groups (key TEXT PRIMARY KEY, shards INTEGER NOT NULL, merged_id BIGINT);
	UPDATE runs SET shard = coalesce(document::jsonb #>> '{config,shard}', '');
	CREATE INDEX runs_kind_workload ON runs(kind, workload_hash, target_kind, started_at);`,
}

// busyTimeout is how long an SQLite writer waits for another's lock.
var busyTimeout = 10 * time.Second

// migrationSteps are the Go steps a migration runs after its SQL, by the
// version it brings the store to.
var migrationSteps = map[int]func(context.Context, *sql.Tx, dialect) error{
	2: normalizeTimes,
}

// timeFormat writes times in UTC to the nanosecond, fixed width: as text
// they sort as the times do.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func timeText(t time.Time) string { return t.UTC().Format(timeFormat) }

// normalizeTimes rewrites the times version 1 wrote (RFC 3339 with the
// trailing zeros of the fraction cut, which do not sort as text) in
// timeFormat.
func normalizeTimes(ctx context.Context, tx *sql.Tx, d dialect) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, started_at, stored_at FROM runs`)
	if err != nil {
		return err
	}
	type fix struct {
		id               int64
		started, storedA string
	}
	var fixes []fix
	for rows.Next() {
		var f fix
		if err := rows.Scan(&f.id, &f.started, &f.storedA); err != nil {
			rows.Close()
			return err
		}
		fixes = append(fixes, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, f := range fixes {
		a, errA := time.Parse(time.RFC3339Nano, f.started)
		b, errB := time.Parse(time.RFC3339Nano, f.storedA)
		if errA != nil || errB != nil {
			continue // not a time tairbench wrote: left as it is
		}
		if _, err := tx.ExecContext(ctx, d.bind(`UPDATE runs SET started_at = ?, stored_at = ? WHERE id = ?`), timeText(a), timeText(b), f.id); err != nil {
			return err
		}
	}
	return nil
}

// bind writes the query's "?" placeholders as the dialect wants them
// (PostgreSQL's $1, $2, …).
func (d dialect) bind(q string) string {
	if d.name != "postgres" {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// openDB opens the database addr names: a PostgreSQL URL
// (postgres://… or postgresql://…) or an SQLite file. It returns the
// dialect and the name errors give the store (a URL without its
// password).
func openDB(addr string) (*sql.DB, dialect, string, error) {
	if scheme, _, ok := strings.Cut(addr, "://"); ok {
		if scheme != "postgres" && scheme != "postgresql" {
			return nil, dialect{}, addr, fmt.Errorf("store %s: want an SQLite file or a postgres:// URL", addr)
		}
		u, err := url.Parse(addr)
		if err != nil {
			return nil, dialect{}, "a postgres:// URL", fmt.Errorf("store: not a URL: %w", err)
		}
		name := u.Redacted()
		db, err := sql.Open("pgx", addr)
		if err != nil {
			return nil, dialect{}, name, fmt.Errorf("store %s: %w", name, err)
		}
		return db, postgres, name, nil
	}
	if err := looksLikeSQLite(addr); err != nil {
		return nil, dialect{}, addr, err
	}
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_txlock=immediate", addr, busyTimeout.Milliseconds()))
	if err != nil {
		return nil, dialect{}, addr, fmt.Errorf("store %s: %w", addr, err)
	}
	return db, sqlite, addr, nil
}
