package whitepaper

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// server is the target as the user names it (no --host: the embedded
// server for the RESP suites, a redis-server for the YCSB ones).
var server = target.Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Timeout: 5 * time.Second}

// TestDryRunsNameEveryCase: each suite's dry run lists its cases and its
// target, and sends nothing.
func TestDryRunsNameEveryCase(t *testing.T) {
	cases := map[string][]string{
		"enhanced": {"SET 64 B", "GET 128 B", "would start in this process; not Tair"},
		"cluster":  {"memtier", "would start in this process; not Tair"},
		"pmem":     {"ycsb load redis", "a redis-server this run would start on a free port"},
		"essd":     {"ycsb", "a redis-server this run would start on a free port"},
		"persistence": {"AOF appendfsync always", "event: bgrewriteaof", "a redis-server this run would start on a free port",
			"open loop at 50% of the capacity measured first", "DEBUG POPULATE 1000000 keys"},
	}
	for _, suite := range Suites {
		t.Run(suite, func(t *testing.T) {
			io, out, _ := harness.Captured("test")
			ro := RunOptions{Suite: suite, DryRun: true,
				YCSBOptions: YCSBOptions{Options: Options{Requests: 1000, TestTime: time.Second, Sizes: []int{64, 128}}, Records: 100, Operations: 100, Threads: 2, Groups: []string{"string"}}}
			require.NoError(t, Main(context.Background(), ro, server, output.Sinks{}, io))
			for _, want := range cases[suite] {
				assert.Contains(t, out.String(), want)
			}
			assert.Contains(t, out.String(), "total:")
		})
	}
}

// TestEnhancedOnTheEmbeddedServer: the enhanced edition's table at one
// value size, beside the published figures, with its document.
func TestEnhancedOnTheEmbeddedServer(t *testing.T) {
	io, out, _ := harness.Captured("test")
	path := filepath.Join(t.TempDir(), "wp.json")
	ro := RunOptions{Suite: "enhanced", JSON: path,
		YCSBOptions: YCSBOptions{Options: Options{Requests: 500, Sizes: []int{64}, NoServerStats: true, Seed: 1}}}
	require.NoError(t, Main(context.Background(), ro, server, output.Sinks{}, io))
	assert.Contains(t, out.String(), "embedded server, not Tair")
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	suite := doc.(*result.WhitepaperSuite)
	assert.Equal(t, "enhanced", suite.Suite)
	require.NotEmpty(t, suite.Cases)
	for _, c := range suite.Cases {
		require.NotNil(t, c.Run, c.Name)
		assert.Equal(t, int64(500), c.Run.Totals.Ops, c.Name)
		assert.Zero(t, c.Run.Totals.Errors, c.Name)
	}
}

func TestRefusesAnUnwritableDocument(t *testing.T) {
	io, _, _ := harness.Captured("test")
	ro := RunOptions{Suite: "enhanced", JSON: filepath.Join(t.TempDir(), "no", "wp.json"),
		YCSBOptions: YCSBOptions{Options: Options{Requests: 10}}}
	err := Main(context.Background(), ro, server, output.Sinks{}, io)
	assert.ErrorContains(t, err, "tairbench creates no folders")
}

// TestPersistenceSuite: each configuration on a redis-server of its own,
// the fork's time and copy in the event cases, the claims beside, the
// target named as not Tair.
func TestPersistenceSuite(t *testing.T) {
	testenv.Integration(t)
	io, out, _ := harness.Captured("test")
	path := filepath.Join(t.TempDir(), "persistence.json")
	ro := RunOptions{Suite: "persistence", JSON: path, Persistence: PersistenceOptions{
		Options: Options{Seed: 1}, Fraction: 0.2, Keys: 20000, ValueSize: 64, Duration: 3 * time.Second, Connections: 2}}
	require.NoError(t, Main(context.Background(), ro, server, output.Sinks{}, io))
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	suite := doc.(*result.WhitepaperSuite)
	require.Len(t, suite.Cases, len(persistenceCases))
	for _, c := range suite.Cases[3:] {
		require.NotNil(t, c.Run.Events, c.Name)
		ev := c.Run.Events.Events[0]
		require.NotNil(t, ev.CompletedS, c.Name)
		assert.NotEmpty(t, ev.Signals["latest_fork_usec"], c.Name)
	}
	assert.Nil(t, suite.Cases[0].Run.Events, "no event where the case has none")
	assert.Contains(t, out.String(), "claim, ESSD whitepaper")
	assert.Contains(t, out.String(), "not Tair")
	assert.Regexp(t, `BGSAVE in mid-run\s+\d+\s+\d+`, out.String())
}
