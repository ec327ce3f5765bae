package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary the tests built, so that nothing is left in
// the system's temporary folder.
func TestMain(m *testing.M) {
	defer func() {
		if binPath != "" {
			_ = os.RemoveAll(filepath.Dir(binPath))
		}
	}()
	m.Run() // its exit code is the test binary's (Go 1.15 and later)
}

// binary builds tairbench once for the package's tests. It is built
// without the race detector even under 'go test -race', so that schedules
// and rates are measured as users run them.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tairbench-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "tairbench")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Log(string(out))
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

// runBinary runs tairbench with args plus --json and returns the result.
func runBinary(t *testing.T, args ...string) *result.Run {
	t.Helper()
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(binary(t), append(args, "-q", "--json", jsonPath, "--allow-errors")...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return runFile(t, jsonPath)
}

func ms(us float64) time.Duration { return time.Duration(us * float64(time.Microsecond)) }

// TestOpenLoopShowsWhatUsersWaited is coordinated omission measured: a
// 2 s CLIENT PAUSE in the middle of a 10 s run at 5,000 requests/s.
func TestOpenLoopShowsWhatUsersWaited(t *testing.T) {
	r := testenv.StartRedis(t)
	port := strconv.Itoa(r.Port)
	args := []string{"redis", "-port", port, "-p", "4", "-command", "SET k-__RAND__ v", "-r", "1000"}

	// Without a pause the median request waits well under a millisecond
	// and the tail stays an order of magnitude under the pause. The tail's
	// bound leaves room for this shared machine's own pauses: two hogs
	// taking 25 ms of each core every 250 ms put the corrected p99 at 23
	// ms, as they should (a tenth of the requests waited for them), and a
	// bound of 10 ms failed three attempts of three.
	calm := runBinary(t, append(args, "-d", "5", "--rate", "5000")...)
	require.NotNil(t, calm.Totals.CorrectedLatency)
	t.Logf("no pause: corrected p50 %.3f ms, p99 %.3f ms; service p99 %.3f ms", calm.Totals.CorrectedLatency.P50/1000,
		calm.Totals.CorrectedLatency.P99/1000, calm.Totals.Latency.P99/1000)
	assert.Less(t, ms(calm.Totals.CorrectedLatency.P50), 2*time.Millisecond, "no pause: corrected p50")
	assert.Less(t, ms(calm.Totals.CorrectedLatency.P99), 100*time.Millisecond, "no pause: corrected p99")
	assert.Less(t, ms(calm.Totals.Latency.P99), 100*time.Millisecond, "no pause: service p99")

	pause := func() {
		time.AfterFunc(5*time.Second, func() { testenv.Do(t, r.Addr, "CLIENT", "PAUSE", "2000", "ALL") })
	}
	pause()
	open := runBinary(t, append(args, "-d", "10", "--rate", "5000")...)
	require.NotNil(t, open.Totals.CorrectedLatency)
	assert.GreaterOrEqual(t, ms(open.Totals.CorrectedLatency.P99), time.Second, "corrected p99 shows the users who waited")
	assert.Less(t, ms(open.Totals.Latency.P99), 100*time.Millisecond, "service time hides them")
	require.NotNil(t, open.Totals.Schedule)
	assert.Greater(t, open.Totals.Schedule.Behind, int64(5000), "requests due during the pause started behind schedule")

	pause()
	closed := runBinary(t, append(args, "-d", "10")...)
	assert.Nil(t, closed.Totals.CorrectedLatency)
	assert.Less(t, ms(closed.Totals.Latency.P99), 100*time.Millisecond, "closed-loop, the pause hardly moves p99")
	t.Logf("p99 with a 2 s pause: open-loop corrected %.1f ms, service %.3f ms; closed-loop %.3f ms",
		open.Totals.CorrectedLatency.P99/1000, open.Totals.Latency.P99/1000, closed.Totals.Latency.P99/1000)
}

// TestScheduleHolds checks that the client keeps a 20,000 requests/s
// schedule against redis-server, with every request woken at its own
// start (the default) and on a send grid (named in the result).
func TestScheduleHolds(t *testing.T) {
	r := testenv.StartRedis(t)
	for _, tc := range []struct {
		grid   string
		gridUS float64
	}{{"", 0}, {"250us", 250}} {
		args := []string{"redis", "-port", strconv.Itoa(r.Port), "-p", "8", "-d", "5", "--rate", "20000",
			"-command", "SET k-__RAND__ v", "-r", "1000"}
		if tc.grid != "" {
			args = append(args, "--send-grid", tc.grid)
		}
		run := runBinary(t, args...)
		require.NotNil(t, run.Totals.Schedule)
		assert.InEpsilon(t, 20000, run.Totals.RequestsPerSec, 0.01, "grid %q: within 1%% of the rate", tc.grid)
		assert.InEpsilon(t, 20000*5, float64(run.Totals.Requests), 0.01, "grid %q", tc.grid)
		assert.Equal(t, tc.gridUS, run.Totals.Schedule.SendGridUS, "the result names the grid in force")
		assert.Less(t, ms(run.Totals.Latency.P50), 5*time.Millisecond, "grid %q: service p50", tc.grid)
		t.Logf("grid %q: 20,000/s asked: %.1f/s sent, %d behind schedule, %d client lags (max %.2f ms); service p50 %.3f ms, from the intended start p50 %.3f ms",
			tc.grid, run.Totals.RequestsPerSec, run.Totals.Schedule.Behind, run.Totals.Schedule.ClientLags,
			run.Totals.Schedule.ClientLagMaxMS, run.Totals.Latency.P50/1000, run.Totals.CorrectedLatency.P50/1000)
	}
}

// TestSendGridRefused: a negative or over-long grid is refused with the
// reason, and nothing runs.
func TestSendGridRefused(t *testing.T) {
	for _, g := range []string{"-1ms", "2s"} {
		out, err := exec.Command(binary(t), "redis", "--embedded", "--rate", "100", "-d", "1", "--send-grid", g,
			"-command", "PING").CombinedOutput()
		require.Error(t, err, g)
		assert.Contains(t, string(out), "--send-grid "+g, g)
	}
}
