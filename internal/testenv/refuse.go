package testenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Refusal is a command line a parser must refuse, and words its error
// must hold (the option it names, as a rule).
type Refusal struct {
	Args    []string
	WantErr string
}

// Refuses checks that try refuses every line with an error holding its
// words: a table of refusals for a dialect's parser.
func Refuses(t testing.TB, lines []Refusal, try func(args []string) error) {
	t.Helper()
	for _, l := range lines {
		err := try(l.Args)
		if assert.Error(t, err, "%v is accepted", l.Args) {
			assert.Contains(t, err.Error(), l.WantErr, "%v", l.Args)
		}
	}
}
