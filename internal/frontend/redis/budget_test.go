package redis

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
)

// TestBudget: -c wins over -d, as in the whitepaper's tool, and says so;
// a count below the connections is warned; no budget is refused.
func TestBudget(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		want    time.Duration
		warning string
		wantErr string
	}{
		{"a duration", Options{Duration: 10 * time.Second, Parallel: 4}, 10 * time.Second, "", ""},
		{"a count", Options{Count: 100, CountGiven: true, Duration: 30 * time.Second, Parallel: 4}, 0, "", ""},
		{"both: the count wins", Options{Count: 100, CountGiven: true, Duration: 5 * time.Second, DurationGiven: true, Parallel: 4},
			0, "-c (total commands) wins and -d is ignored", ""},
		{"a count below the connections", Options{Count: 1, CountGiven: true, Parallel: 4}, 0, "only 1 command(s) will run", ""},
		{"a negative count", Options{Count: -1, CountGiven: true, Parallel: 4}, 0, "", "-c must not be negative"},
		{"neither", Options{Parallel: 4}, 0, "", "need -d above 0 or -c above 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			io, _, errs := harness.Captured("test")
			got, err := budget(tc.o, io)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			if tc.warning == "" {
				assert.Empty(t, errs.String())
			} else {
				assert.Contains(t, errs.String(), tc.warning)
			}
		})
	}
}
