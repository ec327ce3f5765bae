package memtier

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefusedLines: each bad word of a memtier line is refused with one
// line naming it, when parsed or when its workload or report is built.
func TestRefusedLines(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-c", "0"}, "--clients and --threads must be at least 1"},
		{[]string{"-t", "0"}, "--clients and --threads must be at least 1"},
		{[]string{"-n", "abc"}, `--requests "abc"`},
		{[]string{"--test-time", "-1"}, "must not be negative"},
		{[]string{"--pipeline", "0"}, "--pipeline must be at least 1"},
		{[]string{"--key-minimum", "10", "--key-maximum", "5"}, "--key-maximum must not be below --key-minimum"},
		{[]string{"--protocol", "memcache_text"}, "--protocol memcache_text is not supported"},
		{[]string{"--data-size-list", "1:2"}, "--data-size-list is not supported yet"},
		{[]string{"--wait-ratio", "1:1"}, "--wait-ratio (WAIT) is not supported"},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"--ratio", "1:x"}, `--ratio "1:x"`},
		{[]string{"--ratio", "0:0"}, `--ratio "0:0"`},
		{[]string{"--key-pattern", "Q:Q"}, `unknown key pattern "Q"`},
		{[]string{"--data-size-range", "10-5"}, `--data-size-range "10-5"`},
		{[]string{"--command", "GET __key__", "--command-ratio", "x"}, `--command-ratio "x"`},
		{[]string{"--print-percentiles", "50,x"}, `--print-percentiles "50,x"`},
	}
	for _, tc := range tests {
		o, err := Parse(tc.args)
		if err == nil {
			_, err = o.Spec()
		}
		if err == nil {
			_, err = o.percentiles()
		}
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.wantErr, "%v", tc.args)
	}
}
