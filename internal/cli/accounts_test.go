package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/server"
)

// whitepaperLines are the TairRoaring whitepaper's ./redis command lines
// with -a user:password, as printed (host masked there, set here).
var whitepaperLines = []string{
	`-h HOST -a user:password -d 30 -r 100000 -r2 10000000 -command "TR.BITOP dest-__RAND__ AND foo-__RAND__ foo-__RAND__" -p 3 -c 1`,
	`-h HOST -a user:password -d 30 -r 100000 -r2 10000000 -command "TR.BITOPCARD AND foo-__RAND__ foo-__RAND__" -p 2 -c 1`,
	`-h HOST -a user:password -d 30 -r 100000 -r2 10000000 -command "TR.GETBIT foo-__RAND__ __RAND2__" -batching 10 -p 20 -c 1`,
	`-h HOST -a user:password -d 30 -r 100000 -r2 10000000 -command "TR.GETBIT foo-__RAND__ bar-__RAND2__" -p 20 -c 1`,
	`-h HOST -a user:password -d 30 -r 10000000 -command "TR.SETBIT foo-__RAND__ 1" -batching 10 -p 20 -c 1`,
}

// splitLine splits a shell line on spaces, keeping double-quoted parts whole.
func splitLine(s string) []string {
	var out []string
	for i, part := range strings.Split(s, `"`) {
		if i%2 == 1 {
			out = append(out, part)
			continue
		}
		out = append(out, strings.Fields(part)...)
	}
	return out
}

// TestWhitepaperLoginsAgainstServeUser runs the whitepaper's lines, which
// log in with -a user:password, against the embedded server with the
// account user:password: every line logs in (the lines that pass "bar-N"
// as an offset, or lack TR.SETBIT's value, fail on their own, with error
// replies).
func TestWhitepaperLoginsAgainstServeUser(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Users: map[string]string{"user": "password"}})
	require.NoError(t, err)
	defer srv.Close()
	_, p, _ := strings.Cut(srv.Addr(), ":")
	for _, line := range whitepaperLines {
		args := []string{"redis"}
		for _, a := range splitLine(strings.Replace(line, "HOST", "127.0.0.1", 1)) {
			args = append(args, a)
		}
		args = append(args, "-port", p, "-q")
		res := runCLI(context.Background(), args...)
		assert.NotContains(t, res.err, "authentication", line)
		if strings.Contains(line, "bar-__RAND2__") {
			assert.Equal(t, ExitRunFailed, res.code, line)
			assert.Contains(t, res.out, "bit offset is not an integer", line)
			continue
		}
		if strings.Contains(line, `"TR.SETBIT foo-__RAND__ 1"`) { // the printed line lacks the value argument
			assert.Equal(t, ExitRunFailed, res.code, line)
			assert.Contains(t, res.out, "wrong number of arguments", line)
			continue
		}
		assert.Equal(t, 0, res.code, "%s\n%s%s", line, res.out, res.err)
	}
}

// TestEmbeddedWithTairLogin: --embedded with -a user:password gets that
// account, and the run's first line says the server is not Tair.
func TestEmbeddedWithTairLogin(t *testing.T) {
	res := runCLI(context.Background(), "redis", "--embedded", "-a", "user:password", "-c", "100", "-p", "2",
		"-command", "TR.SETBIT k __RAND__ 1", "-q")
	require.Equal(t, 0, res.code, res.out+res.err)
	assert.Contains(t, res.err, "tairbench's embedded server, not Tair, listening on 127.0.0.1:", "its first line says what the target is")
}
