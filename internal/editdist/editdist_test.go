package editdist

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"recordcout", "recordcount", 10, 1}, {"kitten", "sitting", 10, 3}, {"", "abc", 10, 3},
		{"same", "same", 0, 0}, {"a", "abcdef", 2, 3}, {"世界", "世间", 5, 1},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Distance([]rune(c.a), []rune(c.b), c.limit), "%s/%s", c.a, c.b)
	}
}
