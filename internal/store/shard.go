package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/resultset"
	"github.com/tairbench/tairbench/pkg/result"
)

// joinGroup finds (or opens) the group of shards run belongs to and locks
// it for this transaction: its key, or "" and why the shard stays alone.
// A shard stored twice, or one arriving after its group merged, is
// refused.
func (s *Store) joinGroup(ctx context.Context, tx *sql.Tx, r *result.Run, row summary, tags string) (string, string, error) {
	_, n, _ := strings.Cut(row.Shard, "/")
	shards, err := strconv.Atoi(n)
	if err != nil || shards < 2 {
		return "", "", fmt.Errorf("shard %q: want i/N", row.Shard)
	}
	if r.Config.StartAt == nil {
		return "", "not merged in the store: the shards of one run share a --start-at, and this one has none", nil
	}
	key := hash(strings.Join([]string{row.Kind, row.Workload, n, timeText(*r.Config.StartAt), tags}, "\x00"))
	if _, err := tx.ExecContext(ctx, s.d.bind(`INSERT INTO shard_groups(key, shards) VALUES(?, ?) ON CONFLICT(key) DO NOTHING`),
		key, shards); err != nil {
		return "", "", err
	}
	var merged sql.NullInt64
	if err := tx.QueryRowContext(ctx, s.d.bind(`SELECT merged_id FROM shard_groups WHERE key = ?`+s.d.forUpdate), key).Scan(&merged); err != nil {
		return "", "", err
	}
	if merged.Valid {
		return "", "", fmt.Errorf("shard %s: its run's %d shards are already in, merged as %d", row.Shard, shards, merged.Int64)
	}
	var twin int64
	switch err := tx.QueryRowContext(ctx, s.d.bind(`SELECT id FROM runs WHERE shard_group = ? AND shard = ?`), key, row.Shard).Scan(&twin); {
	case err == nil:
		return "", "", fmt.Errorf("shard %s of this run is already stored, as %d", row.Shard, twin)
	case !errors.Is(err, sql.ErrNoRows):
		return "", "", err
	}
	return key, "", nil
}

// mergeGroup merges the group's shards once all are in: the merged run is
// stored with the shards' tags and returned; 0 while shards are missing.
// Shards that cannot be merged (resultset.Merge refuses them) stay as
// they are, with the reason.
func (s *Store) mergeGroup(ctx context.Context, tx *sql.Tx, key, tags string) (int64, string, error) {
	var shards, in int
	if err := tx.QueryRowContext(ctx, s.d.bind(`SELECT shards, (SELECT count(*) FROM runs WHERE shard_group = ? AND shard <> '')
		FROM shard_groups WHERE key = ?`), key, key).Scan(&shards, &in); err != nil {
		return 0, "", err
	}
	if in < shards {
		return 0, "", nil // read the shards' documents once, when the last is in
	}
	rows, err := tx.QueryContext(ctx, s.d.bind(`SELECT document FROM runs WHERE shard_group = ? AND shard <> '' ORDER BY id`), key)
	if err != nil {
		return 0, "", err
	}
	var parts []*result.Run
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			rows.Close()
			return 0, "", err
		}
		doc, err := result.Read(strings.NewReader(body))
		if err != nil {
			rows.Close()
			return 0, "", err
		}
		if r, ok := doc.(*result.Run); ok {
			parts = append(parts, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(parts) < shards {
		return 0, "", err
	}
	// In shard order, whatever order they came in: the merge adds
	// floating-point figures, whose last bits follow the order.
	sort.SliceStable(parts, func(i, j int) bool { return shardIndex(parts[i]) < shardIndex(parts[j]) })
	merged, err := resultset.Merge(parts)
	if err != nil {
		return 0, "not merged: " + err.Error(), nil
	}
	row := summarize(merged)
	row.Group = key
	body, err := json.Marshal(merged)
	if err != nil {
		return 0, "", err
	}
	id, err := s.insertRun(ctx, tx, row, tags, string(body))
	if err != nil {
		return 0, "", err
	}
	if err := s.putRunRows(ctx, tx, id, merged); err != nil {
		return 0, "", err
	}
	_, err = tx.ExecContext(ctx, s.d.bind(`UPDATE shard_groups SET merged_id = ? WHERE key = ?`), id, key)
	return id, "", err
}

// shardIndex is a shard's i of "i/N".
func shardIndex(r *result.Run) int {
	i, _, _ := strings.Cut(r.Config.Shard, "/")
	n, _ := strconv.Atoi(i)
	return n
}
