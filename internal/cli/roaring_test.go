package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestRoaringSuiteCommand(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "suite.json")
	res := runCLI(context.Background(), "roaring", "--embedded", "--cases", "single-read/getbit,batch/setbit-p20-b10,cluster/setbit",
		"--duration-per-case", "0.3", "--stat", "--stat-max-card", "20000", "--stat-universe", "1048576", "--stat-steps", "2",
		"--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	for _, want := range []string{"Single key, reads", "TR.GETBIT", "Batches (MULTI/EXEC)", "Cluster (slot-aware client)",
		"TR.STAT memory, sparse", "not Tair"} {
		assert.Contains(t, res.out, want)
	}
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var suite struct {
		Schema string `json:"schema"`
		Cases  []struct {
			Case struct{ ID string } `json:"case"`
			Run  struct {
				Schema string `json:"schema"`
			} `json:"run"`
		} `json:"cases"`
		Stat []any `json:"stat"`
	}
	require.NoError(t, json.Unmarshal(raw, &suite))
	assert.Equal(t, result.SchemaRoaring, suite.Schema)
	require.Len(t, suite.Cases, 3, "a case ID selects that case alone")
	assert.Equal(t, result.SchemaRun, suite.Cases[0].Run.Schema)
	assert.Len(t, suite.Stat, 3)
}

func TestRoaringListAndBadInput(t *testing.T) {
	res := runCLI(context.Background(), "roaring", "--list")
	require.Equal(t, 0, res.code)
	assert.Contains(t, res.out, "set-ops/bitop-and")
	assert.NotContains(t, res.out, "cluster/", "the cluster group needs --cluster against a standalone target")
	res = runCLI(context.Background(), "roaring", "--list", "--cluster")
	assert.Contains(t, res.out, "cluster/getbit")
	assert.NotContains(t, res.out, "single-read/")

	res = runCLI(context.Background(), "roaring", "--cases", "nope")
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, `no case matches "nope"`)
	res = runCLI(context.Background(), "roaring", "stat", "--embedded", "--stat-dist", "weird")
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "unknown --stat-dist")
}

func TestRoaringStatCommand(t *testing.T) {
	res := runCLI(context.Background(), "roaring", "stat", "--embedded", "--stat-max-card", "30000", "--stat-universe", "1048576",
		"--stat-steps", "2", "--stat-dist", "random,runs")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "TR.STAT memory, random")
	assert.Contains(t, res.out, "TR.STAT memory, runs")
}

// TestRoaringAgainstAnInstance runs the suite the way 'make bench-roaring
// HOST=… AUTH=…' does: a separate server, a password, --flush.
func TestRoaringAgainstAnInstance(t *testing.T) {
	srv, err := server.Start(server.Config{Password: "s3cret"})
	require.NoError(t, err)
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Addr())
	res := runCLI(context.Background(), "roaring", "--host", host, "--port", port, "-a", "default:s3cret", "--flush",
		"--cases", "single-read/getbit,batch/getbit-p2-b100", "--duration-per-case", "0.3")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "TR.GETBIT")
	// The instance here is tairbench's own server over the network: it says
	// so (INFO server_name), and the suite labels it not Tair.
	assert.Contains(t, res.out, "tairbench's embedded server, not Tair", "a networked embedded server is not passed off as Tair")
	res = runCLI(context.Background(), "roaring", "--host", host, "--port", port, "-a", "wrong", "--cases", "single-read/getbit",
		"--duration-per-case", "0.3")
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "WRONGPASS")
}

// TestTairStyleAuthFallback: a server that only accepts the single
// argument AUTH "user:password" (as Tair does) is reached through the fallback.
func TestTairStyleAuthFallback(t *testing.T) {
	// The embedded server's password is literally "tairuser:pw": AUTH tairuser pw
	// (the ACL form, tried first) is refused, AUTH "tairuser:pw" is accepted.
	srv, err := server.Start(server.Config{Password: "tairuser:pw"})
	require.NoError(t, err)
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Addr())
	res := runCLI(context.Background(), "redis", "-h", host, "-port", port, "-a", "tairuser:pw", "-c", "20", "-command", "PING", "-q")
	require.Equal(t, 0, res.code, res.err)
}

// TestRoaringSuiteCapacity runs two cases as capacity searches: the rate
// shown is the highest that held (in bits/s for a batch), the table says so,
// and each case keeps its search. The search starts low and has six steps,
// so that even a machine loaded by other packages' tests under the race
// detector halves down to a rate that holds (CI once broke 2,000 to 250
// batches/s in four steps); an idle one doubles up from it.
func TestRoaringSuiteCapacity(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "suite.json")
	res := runCLI(context.Background(), "roaring", "--embedded", "--cases", "single-read/getbit,batch/setbit-p20-b10",
		"--slo", "p99<500ms", "--slo-window", "0.5", "--slo-warmup", "0.1", "--slo-start", "500", "--slo-max-steps", "6", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "Capacity at p99<500ms")
	assert.Contains(t, res.out, "QPS@SLO")
	assert.Contains(t, res.out, "bits/s@SLO")
	s := readDoc(t, jsonPath).(*result.RoaringSuite)
	assert.Equal(t, "p99<500ms", s.Config.SLO)
	require.Len(t, s.Cases, 2)
	for _, cr := range s.Cases {
		require.NotNil(t, cr.Capacity, cr.Case.ID)
		if cr.Capacity.Unstable {
			// Half-second windows on a machine loaded by other packages:
			// a rate held more than 10 % above one that broke, and the
			// case says so rather than answer.
			assertNoStableAnswer(t, cr.Capacity)
			assert.Zero(t, cr.Rate, cr.Case.ID)
			assert.Contains(t, res.out, "!! no stable answer: the runs contradict each other")
			continue
		}
		require.Positive(t, cr.Capacity.HighestHeld, cr.Case.ID)
		assert.Equal(t, cr.Capacity.HighestHeld*float64(max(1, cr.Case.Batching)), cr.Rate, "%s: the rate is the answer, in the case's unit", cr.Case.ID)
		require.NotNil(t, cr.Run.Totals.CorrectedLatency)
		assert.InDelta(t, cr.Run.Totals.CorrectedLatency.P99/1000, cr.P99MS, 1e-9, "latency from the intended start")
	}
}

// TestRoaringSuiteCapacityHalves starts a batch case's search at a rate the
// embedded server cannot hold (20,000 batches of 500 a second): the search
// halves the rate until one holds (a few hundred a second here; down to
// 10/s within the step limit, for a loaded CI machine).
func TestRoaringSuiteCapacityHalves(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "suite.json")
	res := runCLI(context.Background(), "roaring", "--embedded", "--cases", "batch/setbit-p3-b500",
		"--slo", "p99<200ms", "--slo-window", "0.5", "--slo-warmup", "0.1", "--slo-start", "20000", "--slo-max-steps", "16", "--slo-precision", "0.5", "--json", jsonPath)
	require.Equal(t, 0, res.code, res.err)
	c := readDoc(t, jsonPath).(*result.RoaringSuite).Cases[0].Capacity
	require.NotNil(t, c)
	assert.False(t, c.Steps[0].Held)
	assert.Equal(t, 10_000.0, c.Steps[1].Rate, "halved")
	if c.Unstable {
		assertNoStableAnswer(t, c)
		return
	}
	assert.Positive(t, c.HighestHeld, res.out)
}

// assertNoStableAnswer checks a search that gave no answer: its runs do
// contradict a single capacity (a rate held more than 10 % above one that
// broke), and it says which and lists them.
func assertNoStableAnswer(t *testing.T, c *result.CapacitySearch) {
	t.Helper()
	held, broke := 0.0, math.Inf(1)
	for _, st := range append(slices.Clone(c.Steps), c.Confirmations...) {
		if st.Held {
			held = max(held, st.Rate)
		} else {
			broke = min(broke, st.Rate)
		}
	}
	assert.Greater(t, held, broke*1.1, "no answer only when the runs contradict one")
	assert.Zero(t, c.HighestHeld)
	assert.Contains(t, c.UnstableWhy, fmt.Sprintf("%.0f/s held", held))
	assert.Contains(t, c.UnstableWhy, "steps: ")
	t.Logf("no stable answer on this host now: %s", c.UnstableWhy)
}
