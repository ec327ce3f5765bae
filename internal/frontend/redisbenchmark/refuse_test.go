package redisbenchmark

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusedLines: each bad word of a redis-benchmark line is refused
// with one line naming it, when parsed or when its tests are built.
func TestRefusedLines(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-c", "0"}, "-c must be at least 1"},
		{[]string{"-P", "0"}, "-P must be at least 1"},
		{[]string{"-n", "-1"}, "option -n"},
		{[]string{"-d", "-1"}, "option -d"},
		{[]string{"-r", "-5"}, "option -r"},
		{[]string{"--threads", "x"}, "option --threads"},
		{[]string{"-c"}, "option -c needs a value"},
		{[]string{"--bogus"}, "'--bogus'"},
		{[]string{"--seed", "abc"}, `--seed "abc"`},
		{[]string{"-t", "nosuch"}, "nosuch"},
	}
	for _, tc := range tests {
		o, err := Parse(tc.args, io.Discard)
		if err == nil {
			_, err = o.Tests()
		}
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.wantErr, "%v", tc.args)
	}
}
