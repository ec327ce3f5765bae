package memtier

import (
	"testing"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestRefusedLines: each bad word of a memtier line is refused with one
// line naming it, when parsed or when its workload or report is built.
func TestRefusedLines(t *testing.T) {
	lines := []testenv.Refusal{
		{Args: []string{"-c", "0"}, WantErr: "--clients and --threads must be at least 1"},
		{Args: []string{"-t", "0"}, WantErr: "--clients and --threads must be at least 1"},
		{Args: []string{"-n", "abc"}, WantErr: `--requests "abc"`},
		{Args: []string{"--test-time", "-1"}, WantErr: "must not be negative"},
		{Args: []string{"--pipeline", "0"}, WantErr: "--pipeline must be at least 1"},
		{Args: []string{"--key-minimum", "10", "--key-maximum", "5"}, WantErr: "--key-maximum must not be below --key-minimum"},
		{Args: []string{"--protocol", "memcache_text"}, WantErr: "--protocol memcache_text is not supported"},
		{Args: []string{"--data-size-list", "1:2"}, WantErr: "--data-size-list is not supported yet"},
		{Args: []string{"--wait-ratio", "1:1"}, WantErr: "--wait-ratio (WAIT) is not supported"},
		{Args: []string{"--bogus"}, WantErr: "unknown flag: --bogus"},
		{Args: []string{"--ratio", "1:x"}, WantErr: `--ratio "1:x"`},
		{Args: []string{"--ratio", "0:0"}, WantErr: `--ratio "0:0"`},
		{Args: []string{"--key-pattern", "Q:Q"}, WantErr: `unknown key pattern "Q"`},
		{Args: []string{"--data-size-range", "10-5"}, WantErr: `--data-size-range "10-5"`},
		{Args: []string{"--command", "GET __key__", "--command-ratio", "x"}, WantErr: `--command-ratio "x"`},
		{Args: []string{"--print-percentiles", "50,x"}, WantErr: `--print-percentiles "50,x"`},
	}
	testenv.Refuses(t, lines, func(args []string) error {
		o, err := Parse(args)
		if err == nil {
			_, err = o.Spec()
		}
		if err == nil {
			_, err = o.percentiles()
		}
		return err
	})
}
