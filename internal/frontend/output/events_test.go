package output

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/stats"
)

// TestEventsPlan: the user's event options as a plan, and each refusal
// in one line.
func TestEventsPlan(t *testing.T) {
	p, err := Events{}.Plan()
	require.NoError(t, err)
	assert.Nil(t, p, "no events: no plan")

	file := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(file, []byte("cycles: 2\nevery: 30s\nevents:\n  - at: 5s\n    do: bgsave\n"), 0o600))
	p, err = Events{Specs: []string{"at=10s failover"}, File: file, Cycles: 3, SLO: "p99<2ms", RecoverSeconds: 5}.Plan()
	require.NoError(t, err)
	require.Len(t, p.Events, 2)
	assert.Equal(t, 3, p.Cycles, "--cycles wins over the file's")
	assert.Equal(t, 30*time.Second, p.Every, "the file's period stays")
	assert.Equal(t, "p99<2ms", p.SLOText)
	assert.Equal(t, 5, p.RecoverSeconds)
	fast, slow := stats.NewHistogram(), stats.NewHistogram()
	require.NoError(t, fast.RecordValue(500))
	require.NoError(t, slow.RecordValue(5000))
	assert.True(t, p.SLO(fast, 0))
	assert.False(t, p.SLO(slow, 0))

	for _, c := range []struct {
		e    Events
		want string
	}{
		{Events{Cycles: 2}, "need events"},
		{Events{Specs: []string{"bgsave"}}, "--event: "},
		{Events{Specs: []string{"at=1s bgsave"}, SLO: "fast"}, "--event-slo: "},
		{Events{Specs: []string{"at=1s bgsave"}, Cycles: -1}, "cannot be negative"},
		{Events{File: filepath.Join(t.TempDir(), "none.yaml")}, "--events: "},
	} {
		_, err := c.e.Plan()
		require.Error(t, err, "%+v", c.e)
		assert.Contains(t, err.Error(), c.want)
	}
}
