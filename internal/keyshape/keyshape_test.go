package keyshape

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPattern: ids become placeholders, literals stay, the first id is
// read as a number.
func TestPattern(t *testing.T) {
	tests := []struct {
		key, pattern string
		id           int64
	}{
		{"user:42:cart", "user:{id}:cart", 42},
		{"k-7", "k-{id}", 7},
		{"memtier-123", "memtier-{id}", 123},
		{"key123", "key{id}", 123},
		{"session:5f2b9c0d1e", "session:{hex}", -1},
		{"order:550e8400-e29b-41d4-a716-446655440000:items", "order:{uuid}:items", -1},
		{"a:1:b:2", "a:{id}:b:{id}", 1},
		{"counter", "counter", -1},
		{"v2beta", "v2beta", -1},
		{"", "", -1},
	}
	for _, tc := range tests {
		p, id := Pattern(tc.key)
		assert.Equal(t, tc.pattern, p, tc.key)
		assert.Equal(t, tc.id, id, tc.key)
	}
}
