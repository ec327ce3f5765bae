package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func run(started time.Time, cmd string, p99 float64) *result.Run {
	r := &result.Run{Header: result.Header{Schema: result.SchemaRun, Version: "test", StartedAt: started}, Command: cmd,
		Config: result.RunConfig{Target: &result.Target{Addr: "127.0.0.1:6379", Server: &result.ServerIdentity{Name: "redis", Version: "7.0.15"}}}}
	r.Totals = result.Totals{Ops: 100, OpsPerSec: 50, Latency: result.Latency{P50: p99 / 2, P99: p99}, HeadlineLatency: result.FromSend}
	r.Operations = []result.Operation{{Name: "GET", Ops: 100, Histogram: "h"}}
	mean := p99 / 2
	r.Series = []result.Interval{{Second: 0, Ops: 50, MeanUS: &mean}, {Second: 1, Ops: 50, MeanUS: &mean}}
	return r
}

// TestPutListGet: documents stored with tags come back filtered by tag,
// time, kind and workload, oldest first, with their headline named; Get
// returns the document as it was written; a run's operations and seconds
// have rows of their own.
func TestPutListGet(t *testing.T) { testPutListGet(t, filepath.Join(t.TempDir(), "r.db")) }

func testPutListGet(t *testing.T, addr string) {
	ctx := context.Background()
	s, err := Open(ctx, addr)
	require.NoError(t, err)
	defer s.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a, err := s.Put(ctx, run(t0, "GET k", 200), map[string]string{"branch": "main"})
	require.NoError(t, err)
	_, err = s.Put(ctx, run(t0.Add(48*time.Hour), "SET k v", 300), map[string]string{"branch": "dev"})
	require.NoError(t, err)
	_, err = s.Put(ctx, &result.BitmapComparison{Header: result.Header{Schema: result.SchemaBitmap, StartedAt: t0.Add(time.Hour)}}, nil)
	require.NoError(t, err)

	all, err := s.List(ctx, Filter{})
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, a.ID, all[0].ID, "oldest first")
	assert.Equal(t, "redis 7.0.15", all[0].Server)
	assert.Equal(t, "latency from the send", all[0].Measure)
	assert.Equal(t, 200.0, all[0].P99US)
	assert.Equal(t, result.SchemaBitmap, all[1].Kind)

	main, err := s.List(ctx, Filter{Where: TagConds(map[string]string{"branch": "main"})})
	require.NoError(t, err)
	require.Len(t, main, 1)
	assert.Equal(t, "GET k", main[0].Workload)
	recent, err := s.List(ctx, Filter{Since: t0.Add(24 * time.Hour)})
	require.NoError(t, err)
	require.Len(t, recent, 1)
	assert.Equal(t, "SET k v", recent[0].Workload)
	last, err := s.List(ctx, Filter{Limit: 1, Workload: "k"})
	require.NoError(t, err)
	require.Len(t, last, 1)
	assert.Equal(t, "SET k v", last[0].Workload, "the most recent")

	doc, err := s.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "GET k", doc.(*result.Run).Command)
	_, err = s.Get(ctx, 99)
	assert.ErrorContains(t, err, "no run 99")

	var ops, seconds int
	require.NoError(t, s.db.QueryRow(`SELECT count(*) FROM operations`).Scan(&ops))
	require.NoError(t, s.db.QueryRow(`SELECT count(*) FROM series`).Scan(&seconds))
	assert.Equal(t, 2, ops)
	assert.Equal(t, 4, seconds)
}

// TestRefusals: each bad store is one error naming it, nothing written.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.db")
	require.NoError(t, os.WriteFile(bad, []byte("not a database at all"), 0o644))
	_, err := Open(ctx, bad)
	assert.EqualError(t, err, "store "+bad+": not an SQLite database (nothing written)")
	b, _ := os.ReadFile(bad)
	assert.Equal(t, "not a database at all", string(b), "untouched")

	corrupt := filepath.Join(dir, "corrupt.db")
	require.NoError(t, os.WriteFile(corrupt, append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xAB}, 4096)...), 0o644))
	_, err = Open(ctx, corrupt)
	assert.EqualError(t, err, "store "+corrupt+": file is not a database (26)")

	port := testenv.FreePort(t)
	_, err = Open(ctx, fmt.Sprintf("postgres://u:secret@127.0.0.1:%d/db", port))
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("store postgres://u:xxxxx@127.0.0.1:%d/db: cannot reach PostgreSQL: ", port))
	assert.NotContains(t, err.Error(), "secret")
	assert.NotContains(t, err.Error(), "\n", "one line")
	_, err = Open(ctx, "mysql://u@127.0.0.1/db")
	assert.EqualError(t, err, "store mysql://u@127.0.0.1/db: want an SQLite file or a postgres:// URL")

	newer := filepath.Join(dir, "newer.db")
	s, err := Open(ctx, newer)
	require.NoError(t, err)
	_, err = s.db.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = Open(ctx, newer)
	assert.EqualError(t, err, "store "+newer+" has schema version 99, written by a newer tairbench; this one reads up to "+strconv.Itoa(SchemaVersion))

	_, err = ParseTags([]string{"a=b", "nokv"})
	assert.EqualError(t, err, `tag "nokv": want key=value`)
}

// TestReopenKeepsTheSchema: opening a store again applies no migration
// twice and keeps what it holds.
func TestReopenKeepsTheSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	for i := range 3 {
		s, err := Open(ctx, path)
		require.NoError(t, err)
		_, err = s.Put(ctx, run(time.Unix(int64(1_800_000_000+i), 0), "GET k", 100), nil)
		require.NoError(t, err)
		require.NoError(t, s.Close())
	}
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n))
	assert.Equal(t, 3, n)
}

// BenchmarkPutOneHourRun stores a run of an hour: 3,600 per-second rows
// and 10 operations with their histograms (#56's bar: under 1 s).
func BenchmarkPutOneHourRun(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "r.db"))
	require.NoError(b, err)
	defer s.Close()
	r := run(time.Unix(1_800_000_000, 0), "GET k", 100)
	r.Series = nil
	for i := range 3600 {
		v := float64(i)
		r.Series = append(r.Series, result.Interval{Second: i, Ops: 1000, OpsPerSec: 1000, MeanUS: &v, P50US: &v, P99US: &v})
	}
	r.Operations = nil
	for i := range 10 {
		r.Operations = append(r.Operations, result.Operation{Name: fmt.Sprint("op", i), Ops: 360000, Histogram: strings.Repeat("H", 4000)})
	}
	b.ResetTimer()
	for b.Loop() {
		_, err := s.Put(ctx, r, map[string]string{"branch": "main"})
		require.NoError(b, err)
	}
}

// TestWhereAndLike: conditions select on tags, the target's kind and
// version and the kind; Like keeps the earlier runs of the same workload
// and target kind; a bad condition is refused with the keys it may name.
func TestWhereAndLike(t *testing.T) { testWhereAndLike(t, filepath.Join(t.TempDir(), "r.db")) }

func testWhereAndLike(t *testing.T, addr string) {
	ctx := context.Background()
	s, err := Open(ctx, addr)
	require.NoError(t, err)
	defer s.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 4; i++ {
		_, err := s.Put(ctx, run(t0.Add(time.Duration(i)*time.Hour), "GET k", 200), map[string]string{"branch": "main"})
		require.NoError(t, err)
	}
	other := run(t0.Add(time.Hour), "GET k", 200)
	other.Config.Target.Server = &result.ServerIdentity{Name: "tairbench-embedded", Embedded: true}
	_, err = s.Put(ctx, other, map[string]string{"branch": "main"})
	require.NoError(t, err)
	_, err = s.Put(ctx, run(t0.Add(time.Hour), "SET k v", 200), map[string]string{"branch": "main"})
	require.NoError(t, err)

	where, err := ParseWhere("tag.branch=main AND target.kind=redis and target.version=7.0.15 and kind=run")
	require.NoError(t, err)
	rows, err := s.List(ctx, Filter{Where: where})
	require.NoError(t, err)
	assert.Len(t, rows, 5)
	emb, err := s.List(ctx, Filter{Where: []Cond{{Key: "target.kind", Value: "embedded"}}})
	require.NoError(t, err)
	require.Len(t, emb, 1)

	last, err := s.List(ctx, Filter{ID: 4})
	require.NoError(t, err)
	require.Len(t, last, 1)
	like, err := s.List(ctx, Filter{Like: &last[0]})
	require.NoError(t, err)
	require.Len(t, like, 3, "the three earlier GET runs against redis, not the embedded one, the SET one or itself")
	for _, r := range like {
		assert.Equal(t, "GET k", r.Workload)
		assert.Equal(t, "redis", r.TargetKind)
	}

	for _, bad := range []string{"branch", "tag.=x", "version=1", "tag.branch=main and"} {
		_, err := ParseWhere(bad)
		assert.Error(t, err, bad)
	}
}

// TestMigrationFromVersion1: a store written at schema version 1 gets the
// target's kind and version from each stored document, and its times
// rewritten so that they sort.
func TestMigrationFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(sqliteMigrations[0])
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES('schema_version', '1')`)
	require.NoError(t, err)
	for i, doc := range []string{
		`{"schema":"tairbench.run/v1","config":{"target":{"addr":"a","in_process":true}}}`,
		`{"schema":"tairbench.run/v1","config":{"target":{"addr":"b","server":{"name":"redis","version":"7.0.15"}}}}`,
		`{"schema":"tairbench.bitmap/v1"}`,
	} {
		// Version 1's times: as text, "00.5Z" sorts before "00Z".
		at := []string{"2026-11-01T00:00:00Z", "2026-11-01T00:00:00.5Z", "2026-11-01T00:00:01Z"}[i]
		_, err = db.Exec(`INSERT INTO runs(kind, started_at, stored_at, tool_version, target, server, embedded, workload, workload_hash, tags,
			latency_measure, document) VALUES('k', ?, ?, '', '', '', 0, '', '', '{}', '', ?)`, at, at, doc)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	rows, err := s.List(ctx, Filter{})
	require.NoError(t, err)
	require.Len(t, rows, 3)
	got := [][2]string{}
	for _, r := range rows {
		got = append(got, [2]string{r.TargetKind, r.TargetVersion})
	}
	assert.Equal(t, [][2]string{{"embedded", ""}, {"redis", "7.0.15"}, {"", ""}}, got, "in the order they started")
	assert.Equal(t, 500*time.Millisecond, rows[1].StartedAt.Sub(rows[0].StartedAt))
}

// TestPostgres: the same tests on a real PostgreSQL server (Debian's,
// started on a loopback port), each in a database of its own; a second
// Open of a store applies no migration twice.
func TestPostgres(t *testing.T) {
	url := testenv.StartPostgres(t)
	admin, err := sql.Open("pgx", url)
	require.NoError(t, err)
	defer admin.Close()
	database := func(t *testing.T, name string) string {
		_, err := admin.Exec("CREATE DATABASE " + name)
		require.NoError(t, err)
		return strings.Replace(url, "/postgres?", "/"+name+"?", 1)
	}
	t.Run("PutListGet", func(t *testing.T) { testPutListGet(t, database(t, "putlistget")) })
	t.Run("WhereAndLike", func(t *testing.T) { testWhereAndLike(t, database(t, "whereandlike")) })
	t.Run("Reopen", func(t *testing.T) {
		addr := database(t, "reopen")
		for i := range 3 {
			s, err := Open(context.Background(), addr)
			require.NoError(t, err)
			_, err = s.Put(context.Background(), run(time.Unix(int64(1_800_000_000+i), 0), "GET k", 100), nil)
			require.NoError(t, err)
			require.NoError(t, s.Close())
		}
		s, err := Open(context.Background(), addr)
		require.NoError(t, err)
		defer s.Close()
		rows, err := s.List(context.Background(), Filter{})
		require.NoError(t, err)
		assert.Len(t, rows, 3)
	})
}

// shard is shard i of n of a run that started at t0, waiting for at.
func shard(i, n int, t0 time.Time, at *time.Time) *result.Run {
	r := run(t0, "GET k", 100)
	r.DurationMS, r.Seeds.Base = 2000, uint64(i+1)
	r.Config.Shard, r.Config.StartAt = fmt.Sprintf("%d/%d", i, n), at
	return r
}

// TestShards: shards of one run wait for their group; the last one in
// stores the merged run; a shard stored twice, one after its run merged,
// and one without --start-at (never merged) are each said.
func TestShards(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	require.NoError(t, err)
	defer s.Close()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := t0
	tags := map[string]string{"job": "a"}

	first, err := s.Put(ctx, shard(2, 3, t0, &at), tags)
	require.NoError(t, err)
	assert.Equal(t, "1 (shard 2/3; merged when all its shards are in)", first.String())
	_, err = s.Put(ctx, shard(2, 3, t0, &at), tags)
	assert.ErrorContains(t, err, "shard 2/3 of this run is already stored, as 1")
	other, err := s.Put(ctx, shard(0, 3, t0, &at), map[string]string{"job": "b"})
	require.NoError(t, err)
	assert.Zero(t, other.Merged, "other tags: another run")
	_, err = s.Put(ctx, shard(0, 3, t0, &at), tags)
	require.NoError(t, err)
	last, err := s.Put(ctx, shard(1, 3, t0, &at), tags)
	require.NoError(t, err)
	assert.Equal(t, "4 (shard 1/3; all 3 shards in: merged as 5)", last.String())
	_, err = s.Put(ctx, shard(1, 3, t0, &at), tags)
	assert.ErrorContains(t, err, "shard 1/3: its run's 3 shards are already in, merged as 5")

	doc, err := s.Get(ctx, 5)
	require.NoError(t, err)
	merged := doc.(*result.Run)
	assert.Equal(t, int64(300), merged.Totals.Ops)
	assert.Len(t, merged.Sources, 3)
	rows, err := s.List(ctx, Filter{ID: 5})
	require.NoError(t, err)
	assert.Equal(t, "", rows[0].Shard)
	assert.NotEmpty(t, rows[0].Group)

	alone, err := s.Put(ctx, shard(0, 2, t0, nil), nil)
	require.NoError(t, err)
	assert.Equal(t, "6 (shard 0/2; not merged in the store: the shards of one run share a --start-at, and this one has none)", alone.String())
}

// TestLockedStore: a store another process holds locked longer than the
// wait is refused in one line, and nothing is written.
func TestLockedStore(t *testing.T) {
	defer func(d time.Duration) { busyTimeout = d }(busyTimeout)
	busyTimeout = 200 * time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	other, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer other.Close()
	conn, err := other.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN EXCLUSIVE")
	require.NoError(t, err)
	_, err = s.Put(ctx, run(time.Unix(1_800_000_000, 0), "GET k", 100), nil)
	require.Error(t, err)
	assert.Regexp(t, `^store .*r\.db: another writer held it locked for more than 200ms; nothing written \(database is locked`, err.Error())
	assert.NotContains(t, err.Error(), "\n")
	_, err = conn.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
	rows, err := s.List(ctx, Filter{})
	require.NoError(t, err)
	assert.Empty(t, rows)
}
