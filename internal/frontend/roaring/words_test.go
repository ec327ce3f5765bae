package roaring

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/pkg/result"
)

// words are the defaults 'tairbench roaring' starts from.
func words() Words {
	return Words{Options: common.Defaults(), Server: target.Options{Host: "127.0.0.1", Port: 6379}, CaseDuration: 30 * time.Second, SetOpData: SetOpRandom,
		Stat: StatWords{Dists: "sparse,random,runs", MaxCard: 1000, Steps: 2, Universe: 1 << 20, RunLength: 10}}
}

// TestWordsRefused: every bad word is refused with the flag it came from,
// before anything starts.
func TestWordsRefused(t *testing.T) {
	cases := []struct {
		edit func(*Words)
		want string
	}{
		{func(w *Words) { w.SetOpData = "zipf" }, `--setop-data "zipf": want random or runs`},
		{func(w *Words) { w.CaseDuration = 0 }, "--duration-per-case must be above 0"},
		{func(w *Words) { w.WithStat, w.Stat.Dists = true, "sparse,weird" }, `unknown --stat-dist "weird"`},
		{func(w *Words) { w.WithStat, w.Stat.Universe = true, 1<<32+1 }, "--stat-universe must be in 1"},
		{func(w *Words) { w.WithStat, w.Stat.Steps = true, 0 }, "--stat-steps must be at least 1"},
		{func(w *Words) { w.WithStat, w.Stat.RunLength = true, 1<<20 }, "--stat-run-length must be below --stat-universe"},
	}
	for _, c := range cases {
		w := words()
		c.edit(&w)
		err := MainWords(context.Background(), w, harness.IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
		assert.ErrorContains(t, err, c.want)
	}
	w := words()
	w.List, w.CaseDuration = true, 0
	assert.NoError(t, MainWords(context.Background(), w, harness.IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}),
		"--list runs nothing, so it needs no duration")
}

// TestServerStats: each case samples the server's INFO and reconciles its
// command's count unless --no-server-stats says not to.
func TestServerStats(t *testing.T) {
	for _, off := range []bool{false, true} {
		w := words()
		w.Embedded, w.NoServerStats, w.Filter, w.CaseDuration = true, off, "single-read/getbit", 300*time.Millisecond
		w.JSON = filepath.Join(t.TempDir(), "suite.json")
		var out, errb bytes.Buffer
		require.NoError(t, MainWords(context.Background(), w, harness.IO{Out: &out, Err: &errb, Version: "test"}), errb.String())
		raw, err := os.ReadFile(w.JSON)
		require.NoError(t, err)
		var suite Suite
		require.NoError(t, json.Unmarshal(raw, &suite))
		require.Len(t, suite.Cases, 1)
		run := suite.Cases[0].Run
		if off {
			assert.Nil(t, run.Server, "--no-server-stats samples nothing")
			continue
		}
		require.NotNil(t, run.Server)
		rc := run.Server.Reconciliation
		require.NotNil(t, rc)
		assert.True(t, rc.Match, "the server counted the client's %d TR.GETBITs: %d", rc.Client, rc.Server)
		assert.GreaterOrEqual(t, rc.Client, run.Totals.Ops, "the client counts every reply, warm-up included")
		assert.Equal(t, result.SchemaRun, run.Schema)
	}
}
