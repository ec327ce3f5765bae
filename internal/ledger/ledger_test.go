package ledger

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/resp"
	"github.com/tairbench/tairbench/pkg/result"
)

func integer(v int64) *resp.Reply { return &resp.Reply{Type: ':', Int: v} }
func errReply(msg string) *resp.Reply {
	return &resp.Reply{Type: '-', Err: []byte(msg)}
}

// TestBookEncodes: a connection's writes go round its counters, INCR and
// WAIT pipelined when replicas are waited for.
func TestBookEncodes(t *testing.T) {
	l := New("lg:", 2, 2, 1, 500)
	assert.Equal(t, 2, l.CommandsPerRequest())
	b := l.Book(1)
	buf, op := b.AppendNext(nil)
	assert.Zero(t, op)
	assert.Equal(t, "*2\r\n$4\r\nINCR\r\n$6\r\nlg:1:0\r\n*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$3\r\n500\r\n", string(buf))
	buf, _ = b.AppendNext(buf[:0])
	assert.Contains(t, string(buf), "lg:1:1")
	buf, _ = b.AppendNext(buf[:0])
	assert.Contains(t, string(buf), "lg:1:0")
	assert.Equal(t, []string{"lg:0:0", "lg:0:1", "lg:1:0", "lg:1:1"}, l.AllKeys())
	assert.Equal(t, 1, New("lg:", 1, 1, 0, 0).CommandsPerRequest())

	allocs := testing.AllocsPerRun(100, func() { buf, _ = b.AppendNext(buf[:0]); b.Value(0, integer(1)) })
	assert.Zero(t, allocs, "a write costs no allocation")
}

// TestVerdict: what each connection saw, against the counters read back.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		name  string
		wait  int
		steps func(b *Book)
		value int64
		want  result.Ledger
	}{
		{"all kept", 0, func(b *Book) {
			for i := int64(1); i <= 3; i++ {
				b.AppendNext(nil)
				b.Value(0, integer(i))
			}
		}, 3, result.Ledger{Sent: 3, Acknowledged: 3}},
		{"the last two lost", 0, func(b *Book) {
			for i := int64(1); i <= 3; i++ {
				b.AppendNext(nil)
				b.Value(0, integer(i))
			}
		}, 1, result.Ledger{Sent: 3, Acknowledged: 3, LostAcknowledged: 2}},
		{"no reply, applied", 0, func(b *Book) {
			b.AppendNext(nil)
			b.Value(0, integer(1))
			b.AppendNext(nil) // its connection failed
			b.AppendNext(nil)
			b.Value(0, integer(3))
		}, 3, result.Ledger{Sent: 3, Acknowledged: 2, Unacknowledged: 1, UnacknowledgedApplied: 1}},
		{"no reply, not applied; a refusal", 0, func(b *Book) {
			b.AppendNext(nil)
			b.Value(0, errReply("READONLY You can't write against a read only replica."))
			b.AppendNext(nil)
		}, 0, result.Ledger{Sent: 2, Refused: 1, Unacknowledged: 1}},
		{"applied twice", 0, func(b *Book) {
			b.AppendNext(nil)
			b.Value(0, integer(1))
		}, 2, result.Ledger{Sent: 1, Acknowledged: 1, AppliedTwice: 1}},
		{"WAIT: too few replicas is no acknowledgement", 1, func(b *Book) {
			b.AppendNext(nil)
			b.Value(0, integer(1))
			b.Value(1, integer(1))
			b.AppendNext(nil)
			b.Value(0, integer(2))
			b.Value(1, integer(0))
		}, 1, result.Ledger{Sent: 2, Acknowledged: 1, Unacknowledged: 1, WaitReplicas: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := New("lg:", 1, 1, c.wait, 100)
			c.steps(l.Book(0))
			v := l.Verdict([]int64{c.value})
			require.Equal(t, result.SchemaLedger, v.Schema)
			c.want.Schema, c.want.Keys = result.SchemaLedger, 1
			assert.Equal(t, c.want, *v)
		})
	}
}
