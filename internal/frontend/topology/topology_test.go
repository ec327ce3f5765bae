package topology

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
)

// TestUpShowDown: a Sentinel topology started, shown with each process
// and a command that targets it, and stopped; nothing left to show.
func TestUpShowDown(t *testing.T) {
	testenv.Integration(t)
	o := Options{Kind: "sentinel", Dir: filepath.Join(t.TempDir(), "top")}
	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Up(o, hio))
	t.Cleanup(func() { _ = Down(o, hio) })
	out := stdout.String()
	assert.Regexp(t, regexp.MustCompile(`(?m)^  primary   127\.0\.0\.1:\d+ +PID \d+ +running$`), out)
	assert.Len(t, regexp.MustCompile(`(?m)^  sentinel `).FindAllString(out, -1), 3)
	assert.Regexp(t, `target the primary: tairbench redis -h 127\.0\.0\.1:\d+; the Sentinels name it mymaster`, out)

	hio, stdout, _ = harness.Captured("test")
	require.NoError(t, Down(o, hio))
	assert.Contains(t, stdout.String(), "stopped the sentinel topology")
	assert.ErrorContains(t, Show(o, hio), "holds no topology")
	assert.ErrorContains(t, Down(o, hio), "holds no topology")
}
