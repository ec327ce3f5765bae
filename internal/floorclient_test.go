package internal_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestFloorClientSendsWhatItSays builds scripts/floor_client.c, the floor
// make bench-client puts beside tairbench, and checks on redis-server that
// each of its modes sends the requests it reports, of the command asked,
// and that it refuses bad arguments: a floor that miscounted would make
// every figure divided by its count wrong.
func TestFloorClientSendsWhatItSays(t *testing.T) {
	r := testenv.StartRedis(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		cc, err = exec.LookPath("gcc")
	}
	require.NoError(t, err, "no C compiler: 'make test' installs gcc")
	bin := filepath.Join(t.TempDir(), "floor_client")
	out, err := exec.Command(cc, "-O2", "-o", bin, testenv.RepoPath(t, "scripts/floor_client.c")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	port := strconv.Itoa(r.Port)

	for _, tc := range []struct {
		name, conns, rate, grid, cmd string
		reqs                         int
	}{
		{"closed loop, GET", "8", "0", "0", "get", 2000},
		{"closed loop, SET", "8", "0", "0", "set", 2000},
		{"closed loop, more connections than requests", "300", "0", "0", "get", 200},
		{"grid, GET", "8", "20000", "250", "get", 2000},
		{"grid, SET", "8", "20000", "250", "set", 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := testenv.CommandCalls(t, r.Addr, tc.cmd)
			// A client that lost count of its replies waits for ever: the
			// bound makes that a failure, not a hung test.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin, port, tc.conns, tc.rate, tc.grid, strconv.Itoa(tc.reqs), "1000", tc.cmd).Output()
			require.NoError(t, err, "floor_client did not finish within 30 s (or failed)")
			assert.Regexp(t, `^sent `+strconv.Itoa(tc.reqs)+` cpu [0-9.]+ s\n$`, string(out))
			assert.Equal(t, int64(tc.reqs), testenv.CommandCalls(t, r.Addr, tc.cmd)-before, "commands the server processed")
		})
	}

	for _, args := range [][]string{
		{port, "0", "0", "0", "10", "10"},         // no connections
		{port, "8", "-1", "0", "10", "10"},        // a negative rate
		{port, "8", "1000", "0", "10", "10"},      // a grid of 0 on a rate
		{port, "8", "0", "0", "10", "10", "incr"}, // an unknown command
		{port, "8", "0", "0", "10"},               // too few arguments
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v: %v", args, err)
		assert.Equal(t, 2, ee.ExitCode(), "%v", args)
		assert.Equal(t, 1, strings.Count(string(out), "\n"), "%v: one line: %s", args, out)
	}
}
