package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ERR unknown command 'TR.SETBITS', with args beginning with: 'foo' '123' '456' ",
			"ERR unknown command 'TR.SETBITS', with args beginning with: …"},
		{"ERR unknown command `TR.GETBIT`, with args beginning with: `foo`, `98765`, ",
			"ERR unknown command `TR.GETBIT`, with args beginning with: …"},
		{"ERR bit offset is not an integer or out of range", "ERR bit offset is not an integer or out of range"},
		{"WRONGTYPE Operation against a key holding the wrong kind of value", "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"ERR value 123 for key 'k-1' is out of range, got 'x-77'", "ERR value N for key '…' is out of range, got '…'"},
		{"ERR wrong number of arguments for 'get' command", "ERR wrong number of arguments for 'get' command"},
		{"ERR unknown subcommand 'foo'. Try CLIENT HELP.", "ERR unknown subcommand 'foo'. Try CLIENT HELP."},
		{"ERR -42 is negative", "ERR -N is negative"},
		{"ERR invalid expire time in 'set' command", "ERR invalid expire time in 'set' command"},
		{"read: timeout", "read: timeout"},
		{"cannot connect to 127.0.0.1:6379: connection refused", "cannot connect to N:N: connection refused"},
		{"ERR RESP3 only", "ERR RESP3 only"},
		{"ERR unbalanced 'quote", "ERR unbalanced 'quote"},
		{"HTTP 400: document_parsing_exception: [1:52] failed to parse field [abstract] of type [long] in document with id '17'. Preview of field's value: 'Wear using the in thing, it's India'",
			"HTTP N: document_parsing_exception: [N:N] failed to parse field [abstract] of type [long] in document with id '…'. Preview of field's value: '…'"},
		{"", ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, string(Normalize(nil, []byte(tc.in))), tc.in)
	}
}

func FuzzNormalize(f *testing.F) {
	f.Add("ERR unknown command 'X', with args beginning with: 'a'")
	f.Add("ERR 1.5 '2' `3` \"4\" -5")
	f.Fuzz(func(t *testing.T, s string) {
		out := Normalize(nil, []byte(s))
		assert.Equal(t, string(out), string(Normalize(nil, out)), "normalizing is idempotent")
	})
}
