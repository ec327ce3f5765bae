package redisbenchmark

import (
	"io"
	"testing"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestRefusedLines: each bad word of a redis-benchmark line is refused
// with one line naming it, when parsed or when its tests are built.
func TestRefusedLines(t *testing.T) {
	lines := []testenv.Refusal{
		{Args: []string{"-c", "0"}, WantErr: "-c must be at least 1"},
		{Args: []string{"-P", "0"}, WantErr: "-P must be at least 1"},
		{Args: []string{"-n", "-1"}, WantErr: "option -n"},
		{Args: []string{"-d", "-1"}, WantErr: "option -d"},
		{Args: []string{"-r", "-5"}, WantErr: "option -r"},
		{Args: []string{"--threads", "x"}, WantErr: "option --threads"},
		{Args: []string{"-c"}, WantErr: "option -c needs a value"},
		{Args: []string{"--bogus"}, WantErr: "'--bogus'"},
		{Args: []string{"--seed", "abc"}, WantErr: `--seed "abc"`},
		{Args: []string{"-t", "nosuch"}, WantErr: "nosuch"},
	}
	testenv.Refuses(t, lines, func(args []string) error {
		o, err := Parse(args, io.Discard)
		if err == nil {
			_, err = o.Tests()
		}
		return err
	})
}
