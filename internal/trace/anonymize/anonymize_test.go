package anonymize

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/internal/keyshape"
	"github.com/tairbench/tairbench/internal/trace"
)

// TestRecord: keys keep their shape with their ids mapped one to one,
// values become filler of their length, numbers and keywords stay.
func TestRecord(t *testing.T) {
	a := New()
	run := func(line ...string) string {
		r := trace.Record{}
		for _, w := range line {
			r.Args = append(r.Args, []byte(w))
		}
		a.Record(&r)
		return string(bytes.Join(r.Args, []byte(" ")))
	}
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"SET", "user:4242:cart", "secret", "EX", "300"}, "SET user:0001:cart xxxxxx EX 300"},
		{[]string{"GET", "user:4242:cart"}, "GET user:0001:cart"},
		{[]string{"GET", "user:77:cart"}, "GET user:02:cart"},
		{[]string{"HSET", "session:5f2b9c0d1e", "email", "a@b.c"}, "HSET session:f000000001 xxxxx xxxxx"},
		{[]string{"ZADD", "rank", "12.5", "alice"}, "ZADD rank 12.5 xxxxx"},
		{[]string{"GET", "order:550e8400-e29b-41d4-a716-446655440000"}, "GET order:00000000-0000-0000-0000-000000000001"},
		{[]string{"MGET", "user42", "user43"}, "MGET user03 user04"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, run(tc.in...), "%v", tc.in)
	}
	for _, key := range []string{"user:4242:cart", "session:5f2b9c0d1e", "order:550e8400-e29b-41d4-a716-446655440000"} {
		p, _ := keyshape.Pattern(key)
		q, _ := keyshape.Pattern(a.Key(key))
		assert.Equal(t, p, q, "the pattern survives")
	}
}
