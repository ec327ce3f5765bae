package flagval

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30", 30 * time.Second, ""},
		{"0.5", 500 * time.Millisecond, ""},
		{"1m30s", 90 * time.Second, ""},
		{"-1", 0, "negative"},
		{"soon", 0, "neither seconds nor a duration"},
	}
	for _, tc := range tests {
		var d time.Duration
		err := Seconds{D: &d}.Set(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, d, tc.in)
	}
	assert.Equal(t, "seconds", Seconds{}.Type())
}
