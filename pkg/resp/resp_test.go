package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reader(s string) *Reader {
	return NewReader(bufio.NewReader(strings.NewReader(s)), Limits{})
}

func TestReadReply(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		typ    byte
		isErr  bool
		err    string
		nested int
		first  string
		nilv   bool
		n      int64
	}{
		{"simple", "+OK\r\n", '+', false, "", 0, "", false, 0},
		{"int", ":42\r\n", ':', false, "", 0, "", false, 42},
		{"negint", ":-1\r\n", ':', false, "", 0, "", false, -1},
		{"error", "-ERR bad\r\n", '-', true, "ERR bad", 0, "", false, 0},
		{"bulk", "$3\r\nabc\r\n", '$', false, "", 0, "", false, 3},
		{"nilbulk", "$-1\r\n", '$', false, "", 0, "", true, -1},
		{"nilarray", "*-1\r\n", '*', false, "", 0, "", true, -1},
		{"exec", "*3\r\n:1\r\n-WRONGTYPE x\r\n-ERR y\r\n", '*', false, "", 2, "WRONGTYPE x", false, 3},
		{"nested", "*2\r\n*2\r\n:1\r\n$1\r\na\r\n*0\r\n", '*', false, "", 0, "", false, 2},
		{"resp3 map", "%1\r\n+a\r\n:1\r\n", '%', false, "", 0, "", false, 1},
		{"resp3 null", "_\r\n", '_', false, "", 0, "", true, 0},
		{"resp3 bulk error", "!5\r\nERR x\r\n", '!', true, "ERR x", 0, "", false, 5},
		{"resp3 double", ",1.5\r\n", ',', false, "", 0, "", false, 0},
		{"attribute", "|1\r\n+k\r\n+v\r\n:7\r\n", ':', false, "", 0, "", false, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := reader(tc.in + "+NEXT\r\n")
			var rep Reply
			require.NoError(t, r.ReadReply(&rep))
			assert.Equal(t, string(tc.typ), string(rep.Type))
			assert.Equal(t, tc.isErr, rep.IsError())
			assert.Equal(t, tc.err, string(rep.Err))
			assert.Equal(t, tc.nested, rep.NestedErrors)
			assert.Equal(t, tc.first, string(rep.FirstNested))
			assert.Equal(t, tc.nilv, rep.Nil)
			assert.Equal(t, tc.n, rep.Int)
			require.NoError(t, r.ReadReply(&rep))
			assert.Equal(t, byte('+'), rep.Type, "the whole reply was consumed")
		})
	}
}

func TestReadReplyMalformed(t *testing.T) {
	for _, in := range []string{"?x\r\n", "$abc\r\n", "*x\r\n", "+no crlf\n", "\r\n", "$99999999999\r\n"} {
		var rep Reply
		err := reader(in).ReadReply(&rep)
		assert.True(t, errors.Is(err, ErrProtocol), "%q: %v", in, err)
	}
	var rep Reply
	assert.ErrorIs(t, reader("$5\r\nab").ReadReply(&rep), io.ErrUnexpectedEOF)
}

func TestReadCommand(t *testing.T) {
	r := reader("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\nPING  x\r\n\r\n*1\r\n$4\r\nPING\r\n")
	args, err := r.ReadCommand(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"SET", "k", ""}, strs(args))
	args, err = r.ReadCommand(args)
	require.NoError(t, err)
	assert.Equal(t, []string{"PING", "x"}, strs(args))
	args, err = r.ReadCommand(args)
	require.NoError(t, err)
	assert.Nil(t, args)
	args, err = r.ReadCommand(args)
	require.NoError(t, err)
	assert.Equal(t, []string{"PING"}, strs(args))
	_, err = r.ReadCommand(args)
	assert.ErrorIs(t, err, io.EOF)
}

func TestReadCommandLimits(t *testing.T) {
	tests := map[string]string{
		"huge bulk":      "*1\r\n$1073741824\r\n",
		"huge array":     "*2000000000\r\n",
		"negative bulk":  "*1\r\n$-5\r\n",
		"not bulk":       "*1\r\n:5\r\n",
		"bad terminator": "*1\r\n$1\r\nab\r\n",
		"bad count":      "*x\r\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := reader(in).ReadCommand(nil)
			assert.ErrorIs(t, err, ErrProtocol)
		})
	}
	r := NewReader(bufio.NewReader(strings.NewReader("*2\r\n$3\r\nabc\r\n$3\r\ndef\r\n")), Limits{MaxRequest: 5})
	_, err := r.ReadCommand(nil)
	assert.ErrorIs(t, err, ErrProtocol)
}

// TestLinesLongerThanTheBuffer reads lines that do not fit in the read
// buffer (a client's starts small): whole up to Redis's inline limit, then
// refused; before logging in, a line must fit in the buffer.
func TestLinesLongerThanTheBuffer(t *testing.T) {
	long := strings.Repeat("e", 5000)
	tests := []struct {
		name   string
		in     string
		limits Limits
		errMsg string // the error reply's message
		err    string // the read's error
	}{
		{"error reply", "-ERR " + long + "\r\n:1\r\n", Limits{}, "ERR " + long, ""},
		{"at the limit", "-" + strings.Repeat("e", maxLine-1) + "\r\n:1\r\n", Limits{}, strings.Repeat("e", maxLine-1), ""},
		{"over the limit", "-" + strings.Repeat("e", maxLine+100) + "\r\n", Limits{}, "", "line too long"},
		{"not logged in", "-ERR " + long + "\r\n", UnauthenticatedLimits, "", "line too long"},
		{"cut short", "-ERR " + long, Limits{}, "", "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(bufio.NewReaderSize(strings.NewReader(tt.in), 16), tt.limits)
			var rep Reply
			err := r.ReadReply(&rep)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.errMsg, string(rep.Err))
			require.NoError(t, r.ReadReply(&rep), "the next reply after a long line")
			assert.Equal(t, int64(1), rep.Int)
		})
	}
	t.Run("simple string and inline command", func(t *testing.T) {
		r := NewReader(bufio.NewReaderSize(strings.NewReader("+"+long+"\r\nSET k "+long+"\r\n"), 16), Limits{})
		var rep Reply
		require.NoError(t, r.ReadReply(&rep))
		assert.Equal(t, byte('+'), rep.Type)
		args, err := r.ReadCommand(nil)
		require.NoError(t, err)
		require.Len(t, args, 3)
		assert.Equal(t, long, string(args[2]))
	})
}

// TestGrowKeepsWhatWasBuffered: a full buffer grown mid-reply holds the
// same bytes at once (so that growing it again, which carries only what is
// buffered, cannot drop them), and the replies read through it are whole.
func TestGrowKeepsWhatWasBuffered(t *testing.T) {
	in := "$40\r\n" + strings.Repeat("x", 40) + "\r\n:7\r\n"
	src := strings.NewReader(in)
	r := NewReader(bufio.NewReaderSize(src, 16), Limits{})
	require.NoError(t, r.Fill())
	require.True(t, r.Full())
	before := string(r.Peeked())
	assert.False(t, r.Grow(16, src), "not larger")
	require.True(t, r.Grow(64, src))
	assert.Equal(t, 64, r.BufferSize())
	assert.Equal(t, before, string(r.Peeked()), "the held bytes, buffered again")
	require.True(t, r.Grow(128, src))
	assert.Equal(t, before, string(r.Peeked()), "grown twice")
	var rep Reply
	require.NoError(t, r.ReadReply(&rep))
	assert.Equal(t, int64(40), rep.Int)
	require.NoError(t, r.ReadReply(&rep))
	assert.Equal(t, int64(7), rep.Int)
}

func TestParseInt(t *testing.T) {
	tests := []struct {
		in string
		n  int64
		ok bool
	}{
		{"0", 0, true}, {"-1", -1, true}, {"+7", 7, true}, {"9223372036854775807", 1<<63 - 1, true},
		{"-9223372036854775808", -1 << 63, true}, {"9223372036854775808", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1a", 0, false}, {"99999999999999999999", 0, false},
	}
	for _, tc := range tests {
		n, ok := ParseInt([]byte(tc.in))
		assert.Equal(t, tc.ok, ok, tc.in)
		if ok {
			assert.Equal(t, tc.n, n, tc.in)
		}
	}
}

func TestAppend(t *testing.T) {
	var b []byte
	b = AppendOK(b)
	b = AppendError(b, "ERR a\r\nb")
	b = AppendInt(b, -3)
	b = AppendBulk(b, []byte("xy"))
	b = AppendNil(b)
	b = AppendCommand(b, "GET", "k")
	assert.Equal(t, "+OK\r\n-ERR a  b\r\n:-3\r\n$2\r\nxy\r\n$-1\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", string(b))
}

func strs(a [][]byte) []string {
	out := make([]string, len(a))
	for i, x := range a {
		out[i] = string(x)
	}
	return out
}

func FuzzReadCommand(f *testing.F) {
	for _, s := range []string{"*1\r\n$4\r\nPING\r\n", "PING\r\n", "*2\r\n$1\r\na\r\n$-1\r\n", "*-1\r\n", "$5\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bufio.NewReader(strings.NewReader(string(in))), Limits{MaxBulk: 1 << 16, MaxArgs: 1 << 10, MaxRequest: 1 << 16})
		var args [][]byte
		for i := 0; i < 100; i++ {
			var err error
			args, err = r.ReadCommand(args)
			if err != nil {
				return
			}
		}
	})
}

func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "*2\r\n:1\r\n-ERR\r\n", "%1\r\n+a\r\n:1\r\n", "|1\r\n+a\r\n+b\r\n:1\r\n"} {
		f.Add([]byte(s))
	}
	// The replies read are the same whatever the read buffer's size (a
	// client's starts at 1 KB): a 16-byte one reads lines longer than it.
	f.Fuzz(func(t *testing.T, in []byte) {
		read := func(size int) []string {
			r := NewReader(bufio.NewReaderSize(strings.NewReader(string(in)), size), Limits{MaxBulk: 1 << 16, MaxArgs: 1 << 10})
			var rep Reply
			var got []string
			for i := 0; i < 100; i++ {
				if err := r.ReadReply(&rep); err != nil {
					return append(got, "error")
				}
				got = append(got, fmt.Sprintf("%c %d %v %q %d %q %d", rep.Type, rep.Int, rep.Nil, rep.Err, rep.NestedErrors, rep.FirstNested, rep.Elems))
			}
			return got
		}
		assert.Equal(t, read(4096), read(16))
	})
}

func BenchmarkReadReply(b *testing.B) {
	data := strings.Repeat("*3\r\n:1\r\n$3\r\nabc\r\n+OK\r\n", 1000)
	var rep Reply
	b.ReportAllocs()
	for i := 0; i < b.N; i += 1000 {
		r := NewReader(bufio.NewReaderSize(strings.NewReader(data), 1<<16), Limits{})
		for j := 0; j < 1000; j++ {
			if err := r.ReadReply(&rep); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReadCommand reads a pipelined SET with a 64-byte value: the
// server's per-command cost of parsing, with no allocation.
func BenchmarkReadCommand(b *testing.B) {
	one := "*3\r\n$3\r\nSET\r\n$8\r\nkey:1234\r\n$64\r\n" + strings.Repeat("v", 64) + "\r\n"
	src := strings.NewReader(strings.Repeat(one, 1000))
	br := bufio.NewReaderSize(src, 64<<10)
	r := NewReader(br, Limits{})
	var args [][]byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%1000 == 0 {
			src.Reset(strings.Repeat(one, 1000))
			br.Reset(src)
		}
		var err error
		if args, err = r.ReadCommand(args); err != nil || len(args) != 3 {
			b.Fatal(err)
		}
	}
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want bool
	}{
		{"", 1, false},
		{"", 0, true},
		{"+OK\r\n", 1, true},
		{"+OK\r", 1, false},
		{"+OK\r\n+OK\r\n", 2, true},
		{"+OK\r\n+O", 2, false},
		{"$5\r\nhello\r\n", 1, true},
		{"$5\r\nhel", 1, false},
		{"$5\r\nhello\r", 1, false},
		{"$-1\r\n", 1, true},
		{"*2\r\n$1\r\na\r\n", 1, false},
		{"*2\r\n$1\r\na\r\n:1\r\n", 1, true},
		{"*-1\r\n", 1, true},
		{"*0\r\n", 1, true},
		{"%1\r\n+a\r\n", 1, false},
		{"%1\r\n+a\r\n:1\r\n", 1, true},
		{"|1\r\n+a\r\n+b\r\n", 1, false},
		{"|1\r\n+a\r\n+b\r\n:1\r\n", 1, true},
		{"*3\r\n+OK\r\n*1\r\n-ERR x\r\n_\r\n", 1, true},
		{"!3\r\nERR\r\n", 1, true},
		{"=5\r\ntxt:a\r\n", 1, true},
		{"+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n", 3, true},
		{"+OK\r\n+QUEUED\r\n*1\r\n", 3, false},
		// Malformed: the reader reports it, so nothing more is waited for.
		{"\r\n", 1, true},
		{"x\r\n", 1, true},
		{"$x\r\n", 1, true},
		{"+OK\n", 1, true},
	} {
		assert.Equal(t, tc.want, Complete([]byte(tc.in), tc.n), "%q (%d)", tc.in, tc.n)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { Complete([]byte("*2\r\n$1\r\na\r\n:1\r\n"), 1) }))
}

// FuzzComplete: when ReadReply reads n replies from b, Complete(b, n) says
// they are there (else a reader that must not wait would wait for ever);
// when Complete says so, ReadReply does not run out of bytes.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "*2\r\n:1\r\n-ERR\r\n", "%1\r\n+a\r\n:1\r\n", "|1\r\n+a\r\n+b\r\n:1\r\n", "$3\r\nabc\r\n$-1\r\n"} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, in []byte, n uint8) {
		r := NewReader(bufio.NewReaderSize(strings.NewReader(string(in)), len(in)+16), Limits{MaxBulk: 1 << 20, MaxArgs: 1 << 20})
		var rep Reply
		var err error
		for range int(n) {
			if err = r.ReadReply(&rep); err != nil {
				break
			}
		}
		complete := Complete(in, int(n))
		if err == nil {
			assert.True(t, complete, "%q: %d replies read", in, n)
		}
		if complete && err != nil {
			assert.NotErrorIs(t, err, io.EOF, "%q", in)
			assert.NotErrorIs(t, err, io.ErrUnexpectedEOF, "%q", in)
		}
	})
}

// buffered is a Reader whose buffer holds all of in (and reads nothing more).
func buffered(in []byte) *Reader {
	r := NewReader(bufio.NewReaderSize(strings.NewReader(string(in)), len(in)+16), Limits{MaxBulk: 1 << 20, MaxArgs: 1 << 20})
	_, _ = r.br.Peek(len(in))
	return r
}

func TestPlainReplies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		end  int
		want PlainState
	}{
		{"", 0, 0, Plain},
		{"", 1, 0, Short},
		{"+OK\r\n", 1, 5, Plain},
		{"+OK\r\n:1\r\n", 2, 9, Plain},
		{"+OK\r\n:1\r\n", 1, 5, Plain},
		{"$5\r\nhello\r\n#t\r\n,1.5\r\n(12\r\n=5\r\ntxt:a\r\n", 5, 37, Plain},
		{"$0\r\n\r\n", 1, 6, Plain},
		{"+OK\r", 1, 0, Short},
		{"$5\r\nhel", 1, 0, Short},
		{"+OK\r\n$5\r\nhello\r", 2, 0, Short},
		// Not plain: errors, nulls, aggregates, attributes, malformed.
		{"-ERR x\r\n", 1, 0, NotPlain},
		{"!3\r\nERR\r\n", 1, 0, NotPlain},
		{"$-1\r\n", 1, 0, NotPlain},
		{"_\r\n", 1, 0, NotPlain},
		{"*1\r\n+OK\r\n", 1, 0, NotPlain},
		{"|1\r\n+a\r\n+b\r\n:1\r\n", 1, 0, NotPlain},
		{"+OK\r\n-ERR\r\n", 2, 0, NotPlain},
		{"\r\n", 1, 0, NotPlain},
		{"+OK\n", 1, 0, NotPlain},
		{"$x\r\n", 1, 0, NotPlain},
		{"$2000000\r\n", 1, 0, Short},
		{"*1\r\n+OK\r\n+OK\r\n", 2, 0, NotPlain},
		{"+OK\r\n*2\r\n:1\r\n", 2, 0, Short},
	} {
		end, st := buffered([]byte(tc.in)).PlainReplies(tc.n)
		assert.Equal(t, tc.want, st, "%q (%d)", tc.in, tc.n)
		assert.Equal(t, tc.end, end, "%q (%d)", tc.in, tc.n)
	}
	over := NewReader(bufio.NewReaderSize(strings.NewReader("$5\r\nhello\r\n"), 64), Limits{MaxBulk: 4})
	_, _ = over.br.Peek(11)
	_, st := over.PlainReplies(1)
	assert.Equal(t, NotPlain, st, "a bulk over the limit: ReadReply refuses it")
	r := buffered([]byte("+OK\r\n:1\r\n$1\r\nx\r\n+OK\r\n"))
	assert.Zero(t, testing.AllocsPerRun(100, func() { r.PlainReplies(3) }))
	end, _ := r.PlainReplies(3)
	r.Skip(end)
	var rep Reply
	require.NoError(t, r.ReadReply(&rep))
	assert.Equal(t, byte('+'), rep.Type, "Skip consumed the three replies, no more")
}

// FuzzPlainReplies: when PlainReplies says the n replies are plain,
// ReadReply reads them, none an error nor empty, in exactly the bytes it
// measured; when it says they are short, Complete agrees that they have
// not all come, and when it says they are not plain, that they have.
func FuzzPlainReplies(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "$3\r\nabc\r\n:1\r\n", "#t\r\n$-1\r\n", "$5\r\nab", "*1\r\n+a\r\n"} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, in []byte, n uint8) {
		r := buffered(in)
		end, st := r.PlainReplies(int(n))
		switch st {
		case Plain:
			var rep Reply
			for range int(n) {
				require.NoError(t, r.ReadReply(&rep), "%q", in)
				assert.False(t, rep.IsError() || rep.Nil, "%q", in)
				assert.Zero(t, rep.Elems, "%q", in)
			}
			assert.Equal(t, len(in)-end, r.Buffered(), "%q: the replies' length", in)
		case Short:
			assert.False(t, Complete(in, int(n)), "%q", in)
		case NotPlain:
			assert.True(t, Complete(in, int(n)), "%q", in)
		}
	})
}

// TestNotRESP: input that is not RESP at all (an HTTP answer, a banner, a
// line without CR) is a NotRESPError, an ErrProtocol that quotes its
// start and says whether it is HTTP.
func TestNotRESP(t *testing.T) {
	cases := []struct {
		in, start string
		http      bool
	}{
		{"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\n", "HTTP/1.1 400 Bad Request", true},
		{"<!DOCTYPE HTML>\n<html>\n", "<!DOCTYPE HTML>", true},
		{"<html><body>no</body></html>\r\n", "<html><body>no</body></html>", true},
		{"SSH-2.0-OpenSSH_9.2\r\n", "SSH-2.0-OpenSSH_9.2", false},
		{"+no crlf\n", "+no crlf", false},
	}
	for _, c := range cases {
		var rep Reply
		for _, err := range []error{reader(c.in).ReadReply(&rep), func() error { _, _, _, err := reader(c.in).ReadText(); return err }()} {
			var nr *NotRESPError
			require.ErrorAs(t, err, &nr, "%q", c.in)
			assert.ErrorIs(t, err, ErrProtocol)
			assert.Equal(t, c.start, nr.Start)
			assert.Equal(t, c.http, nr.HTTP(), "%q", c.in)
		}
	}
	_, _, _, err := reader("*1\r\n$1\r\na\r\n").ReadText()
	assert.EqualError(t, err, "protocol error: expected a string reply, got an array", "RESP of another type is not foreign")
}

// TestSpan: the length of the reply a buffer begins with.
func TestSpan(t *testing.T) {
	tests := []struct {
		in      string
		n       int
		ok, bad bool
	}{
		{"+OK\r\n:1\r\n", 5, true, false},
		{"$3\r\nabc\r\n", 9, true, false},
		{"$3\r\nab", 0, false, false},
		{"*2\r\n:1\r\n$-1\r\n+x", 13, true, false},
		{"*2\r\n:1\r\n", 0, false, false},
		{"x\r\n", 0, false, true},
	}
	for _, tc := range tests {
		n, ok, bad := Span([]byte(tc.in))
		assert.Equal(t, tc.n, n, tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.bad, bad, tc.in)
	}
}
