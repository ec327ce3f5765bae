package commands

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShowsMiss(t *testing.T) {
	cases := map[string]bool{
		"GET k-__RAND__":         true,
		"get k":                  true,
		"HGETALL h":              true,
		"TR.RANGE foo 0 100":     true,
		"TR.GETBIT foo __RAND__": false,
		"  sismember s m":        false,
		"EXISTS k":               false,
		"SOMETHING.NEW k":        true,
		"":                       true,
	}
	for cmd, want := range cases {
		assert.Equal(t, want, ShowsMiss(cmd), cmd)
	}
}

func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range All() {
		assert.False(t, seen[c.Name], "%s twice", c.Name)
		seen[c.Name] = true
		assert.NotEmpty(t, c.Module, c.Name)
		if c.Fill != nil {
			assert.False(t, c.Write || c.NoKey, "%s has a fill but needs none", c.Name)
			w, ok := Lookup(c.Fill.Template[:indexSpace(c.Fill.Template)])
			require.True(t, ok, "%s's fill writes with a known command", c.Name)
			assert.True(t, w.Write, "%s's fill writes", c.Name)
		}
	}
	c, ok := Lookup("tr.getbit")
	require.True(t, ok)
	assert.Equal(t, "TairRoaring", c.Module)
}

func indexSpace(s string) int {
	for i := range s {
		if s[i] == ' ' {
			return i
		}
	}
	return len(s)
}

// TestKeyPositions: where the keys are, by command.
func TestKeyPositions(t *testing.T) {
	assert.Equal(t, []int{1}, KeyPositions("GET", 2))
	assert.Equal(t, []int{1, 2, 3}, KeyPositions("MGET", 4))
	assert.Equal(t, []int{1, 3}, KeyPositions("MSET", 5))
	assert.Equal(t, []int{2, 3}, KeyPositions("BITOP", 4))
	assert.Equal(t, []int{1, 3, 4}, KeyPositions("TR.BITOP", 5))
	assert.Nil(t, KeyPositions("PING", 1))
	assert.Nil(t, KeyPositions("INFO", 2))
	assert.Nil(t, KeyPositions("EVAL", 4))
}
