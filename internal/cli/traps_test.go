package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestEveryHelpOpensWithAnExample walks the command tree.
func TestEveryHelpOpensWithAnExample(t *testing.T) {
	root := NewRoot(Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" || c.Parent() != nil && c.Parent().Name() == "completion" {
			return
		}
		args := append(strings.Fields(c.CommandPath())[1:], "--help")
		if c.DisableFlagParsing {
			args = append([]string{"help"}, strings.Fields(c.CommandPath())[1:]...)
		}
		res := runCLI(context.Background(), args...)
		require.Equal(t, 0, res.code, "%v: %s", args, res.err)
		assert.True(t, strings.HasPrefix(res.out, "Example: tairbench "), "%s: help starts %q", c.CommandPath(), firstLineOf(res.out))
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestPortTraps: -p that looks like a port with a server on it, -h and -p
// without -port, and a password given to search -a.
func TestPortTraps(t *testing.T) {
	r := testenv.StartRedis(t)
	res := runCLI(context.Background(), "redis", "-h", "127.0.0.1", "-p", port(r), "--dry-run")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "-p "+port(r)+" means "+port(r)+" connections here (the whitepaper tool's flag), and a server listens on 127.0.0.1:"+port(r))
	assert.Contains(t, res.err, "give -port "+port(r))

	res = runCLI(context.Background(), "redis", "-h", "127.0.0.1", "-p", "20", "--dry-run")
	assert.Contains(t, res.err, "-h and -p without -port")
	res = runCLI(context.Background(), "redis", "-h", "127.0.0.1", "-p", "20", "-port", port(r), "--dry-run")
	assert.NotContains(t, res.err, "WARNING")

	res = runCLI(context.Background(), "search", "-a", "secret", "-n", "1")
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "the password is --auth")
	res = runCLI(context.Background(), "search", "-a", "127.0.0.1:1", "-c", port(r), "-n", "1", "-t", "write", "-f", "/nonexistent")
	assert.Contains(t, res.err, "-c "+port(r)+" means "+port(r)+" connections here (TairSearchBench's flag)")
}
