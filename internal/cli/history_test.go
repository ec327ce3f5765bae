package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/result"
)

// TestStoreAndHistory: runs given --store keep their results, tagged;
// files are imported; history lists and filters them with each headline
// named; export writes a stored result back as it was; a bad store, a bad
// tag and an unknown id are refused in one line each.
func TestStoreAndHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	closed := filepath.Join(dir, "closed.json")
	res := runCLI(ctx, "redis", "--embedded", "-c", "2000", "-command", "SET k v", "-q", "--store", db, "--tag", "branch=main", "--json", closed)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "stored as 1 in "+db)
	t.Setenv("TAIRBENCH_STORE", db)
	res = runCLI(ctx, "redis", "--embedded", "-d", "1", "--rate", "500", "-command", "GET k", "-q", "--tag", "branch=dev")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "stored as 2 in "+db, "TAIRBENCH_STORE is the default store")

	res = runCLI(ctx, "redis-benchmark", "--embedded", "-n", "500", "-t", "set", "-q", "--tag", "tool=redis-benchmark")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "stored as 3 in "+db, "a dialect takes --store and --tag among its own words")

	res = runCLI(ctx, "store", "import", closed, "--tag", "src=file")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, closed+": stored as 4")

	res = runCLI(ctx, "history")
	require.Equal(t, 0, res.code, res.err)
	for _, want := range []string{"embedded server, not Tair", "SET k v", "branch=main", "branch=dev", "src=file", "tool=redis-benchmark", "compat",
		"latency from the send", "latency from the intended start"} {
		assert.Contains(t, res.out, want)
	}
	res = runCLI(ctx, "history", "--tag", "branch=dev", "--kind", "run", "--since", "1d")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "GET k")
	assert.NotContains(t, res.out, "SET k v")
	res = runCLI(ctx, "history", "--where", "target.kind=embedded and tag.branch=dev")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "GET k")
	assert.NotContains(t, res.out, "SET k v")
	res = runCLI(ctx, "history", "--trend", "qps", "--workload", "GET k")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, `"GET k" against tairbench's embedded server (not Tair): QPS (commands/s), 1 runs`)

	exported := filepath.Join(dir, "one.json")
	res = runCLI(ctx, "store", "export", "1", "-o", exported)
	require.Equal(t, 0, res.code, res.err)
	a, err := result.ReadFile(closed)
	require.NoError(t, err)
	b, err := result.ReadFile(exported)
	require.NoError(t, err)
	assert.Equal(t, a, b, "the stored result is the file it was")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"store", "export", "9"}, "no run 9"},
		{[]string{"store", "export", "x"}, `run id "x": want a number`},
		{[]string{"history", "--since", "soon"}, `--since "soon": want a span back from now`},
		{[]string{"history", "--where", "version=7"}, `--where: condition "version=7": unknown key "version"`},
		{[]string{"history", "--trend", "qps", "--window", "0"}, "--window 0: want 1 or more earlier runs"},
		{[]string{"gate", "--baseline", "first 7"}, `--baseline "first 7": want 'last N'`},
		{[]string{"history", "--store", filepath.Join(dir, "none.db")}, "none.db"},
		{[]string{"store", "import", filepath.Join(dir, "none.json")}, "none.json"},
		{[]string{"redis", "--embedded", "-c", "10", "-command", "PING", "-q", "--tag", "nokv"}, `tag "nokv": want key=value`},
	} {
		res = runCLI(ctx, c.args...)
		assert.Equal(t, 1, res.code, c.args)
		assert.Contains(t, res.err, c.want, c.args)
	}
	res = runCLI(ctx, "history")
	require.Equal(t, 0, res.code)
	assert.NotContains(t, res.out, "PING", "a refused run stored nothing")
}
