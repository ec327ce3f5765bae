package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRepeatedSingleValueFlagsAreRefused(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // "" when accepted
	}{
		{"search -q twice", []string{"search", "-t", "search", "-q", `{"a":1}`, "-q", `{"b":2}`}, "--query was given more than once"},
		{"redis -p twice", []string{"redis", "-p", "4", "-p", "8"}, "--parallel was given more than once"},
		{"redis --port and -port", []string{"redis", "--port", "1", "-port", "2"}, "--port was given more than once"},
		{"attached values", []string{"redis", "-p4", "--parallel=8"}, "--parallel was given more than once"},
		{"a repeatable flag", []string{"redis", "-command", "GET a", "-command", "GET b", "--no-such-flag"}, ""},
		{"a value that looks like the flag", []string{"redis", "-command", "-p", "-c", "1"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runCLI(context.Background(), c.args...)
			if c.want == "" {
				assert.NotContains(t, res.err, "more than once")
				return
			}
			assert.Equal(t, ExitError1, res.code)
			assert.Contains(t, res.err, c.want)
		})
	}
}

func TestZeroSizesAreRefused(t *testing.T) {
	for flag, want := range map[string]string{"-P": "-P must be at least 1", "-batching": "-batching must be at least 1"} {
		res := runCLI(context.Background(), "redis", flag, "0", "-c", "10")
		assert.Equal(t, ExitError1, res.code, flag)
		assert.Contains(t, res.err, want)
	}
}

func TestRedisBenchmarkRefusesCipherLists(t *testing.T) {
	res := runCLI(context.Background(), "redis-benchmark", "--tls-ciphers", "HIGH", "-n", "10")
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "--tls-ciphers is not supported")
}

// TestResultPathCheckedBeforeTheRun: a --json path that cannot be written
// fails at once, before any command is sent (it used to be found after the
// whole run, and then no result was written at all).
func TestResultPathCheckedBeforeTheRun(t *testing.T) {
	for _, path := range []string{"/nonexistent-tairbench/dir/x.json", "/proc/x.json"} {
		res := runCLI(context.Background(), "redis", "--embedded", "-c", "1000", "-command", "TR.SETBIT k __RAND__ 1", "--json", path)
		assert.Equal(t, ExitError1, res.code, path)
		assert.Contains(t, res.err, "cannot write "+path)
		assert.NotContains(t, res.out, "commands", "no run: %s", res.out)
	}
}
