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

func TestParseCountAndBytes(t *testing.T) {
	counts := map[string]uint64{"100000": 100000, "1e5": 100000, "2^24": 1 << 24, "2^32": 1 << 32, " 7 ": 7, "1.5e3": 1500}
	for in, want := range counts {
		got, err := ParseCount(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "-1", "1.5", "2^64", "abc", "1^3", "1e30"} {
		_, err := ParseCount(in)
		require.Error(t, err, in)
	}
	sizes := map[string]uint64{"0": 0, "512MiB": 512 << 20, "2GiB": 2 << 30, "2G": 2 << 30, "1.5 KB": 1500, "100": 100}
	for in, want := range sizes {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "2TB", "-1", "GiB"} {
		_, err := ParseBytes(in)
		require.Error(t, err, in)
	}
}

// TestRate: a rate per second, or a multiple of a workload's.
func TestRate(t *testing.T) {
	tests := []struct {
		in         string
		per, times float64
		err        string
	}{
		{"5000", 5000, 0, ""},
		{"0", 0, 0, ""},
		{"2x", 0, 2, ""},
		{"0.5x", 0, 0.5, ""},
		{"0x", 0, 0, "a multiple above 0"},
		{"-1", 0, 0, "requests per second"},
		{"fast", 0, 0, "requests per second"},
	}
	for _, tc := range tests {
		var per, times float64
		r := Rate{PerSecond: &per, Times: &times}
		err := r.Set(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.per, per, tc.in)
		assert.Equal(t, tc.times, times, tc.in)
		if tc.in != "0" {
			assert.Equal(t, tc.in, r.String())
		}
	}
}
