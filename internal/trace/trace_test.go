package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() []Record {
	return []Record{
		{At: 0, Conn: 0, DB: 0, Args: [][]byte{[]byte("SET"), []byte("user:1:cart"), []byte("v\x00\xff")}, Reply: ReplyStatus},
		{At: 1500 * time.Microsecond, Conn: 1, DB: 3, Args: [][]byte{[]byte("GET"), []byte("user:1:cart")}, Reply: ReplyBulk, ReplyAfter: 250 * time.Microsecond, ReplyLen: 3},
		{At: 1200 * time.Microsecond, Conn: 0, DB: 0, Args: [][]byte{[]byte("PING")}}, // a clock that went back
		{At: time.Hour, Conn: 70000, DB: 15, Args: [][]byte{[]byte("DEL"), {}}, Reply: ReplyInteger},
	}
}

func write(t testing.TB, recs []Record) []byte {
	var b bytes.Buffer
	w, err := NewWriter(&b, Meta{Source: "test", Start: time.Unix(1700000000, 0).UTC()})
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, w.Write(r))
	}
	require.Equal(t, int64(len(recs)), w.Records())
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	b := write(t, sample())
	assert.Equal(t, Magic, string(b[:8]))
	r, err := NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, "test", r.Meta().Source)
	assert.True(t, r.Meta().Start.Equal(time.Unix(1700000000, 0)))
	var rec Record
	for i, want := range sample() {
		require.NoError(t, r.Read(&rec), i)
		if want.Args[len(want.Args)-1] == nil {
			want.Args[len(want.Args)-1] = []byte{}
		}
		assert.Equal(t, want, rec, i)
	}
	assert.ErrorIs(t, r.Read(&rec), io.EOF)
}

// A trace cut anywhere inside a record, or that is not one, is refused
// naming the record and the byte of the stream.
func TestTruncatedAndForeign(t *testing.T) {
	_, err := NewReader(bytes.NewReader([]byte("MONITOR output")))
	assert.ErrorIs(t, err, ErrNotATrace)
	_, err = NewReader(bytes.NewReader([]byte("TBTRACE9")))
	assert.EqualError(t, err, "trace format version 9: this tairbench reads versions 1 and 2")

	// The stream of two records, cut short inside the second one's last
	// argument, compressed again.
	var raw bytes.Buffer
	w, err := NewWriter(&raw, Meta{Source: "cut"})
	require.NoError(t, err)
	for _, r := range sample()[:2] {
		require.NoError(t, w.Write(r))
	}
	require.NoError(t, w.Close())
	zr, err := zstd.NewReader(bytes.NewReader(raw.Bytes()[len(Magic):]))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	zr.Close()
	var cut bytes.Buffer
	cut.WriteString(Magic)
	zw, err := zstd.NewWriter(&cut)
	require.NoError(t, err)
	_, err = zw.Write(plain[:len(plain)-6]) // into the second record's last argument
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	r, err := NewReader(bytes.NewReader(cut.Bytes()))
	require.NoError(t, err)
	defer r.Close()
	var rec Record
	require.NoError(t, r.Read(&rec))
	err = r.Read(&rec)
	var ce *CorruptError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, int64(2), ce.Record)
	assert.Contains(t, err.Error(), "trace: record 2 at byte")
	assert.Contains(t, err.Error(), "the trace ends inside argument 2")
}

func FuzzReader(f *testing.F) {
	f.Add(write(f, sample()))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		defer r.Close()
		var rec Record
		for i := 0; i < 1000 && r.Read(&rec) == nil; i++ {
		}
	})
}

// BenchmarkRead is records read per second from a compressed trace.
func BenchmarkRead(b *testing.B) {
	recs := make([]Record, 0, 10000)
	for i := 0; i < 10000; i++ {
		recs = append(recs, Record{At: time.Duration(i) * 200 * time.Microsecond, Conn: uint32(i % 50),
			Args: [][]byte{[]byte("SET"), []byte("user:1234:cart"), []byte("value-abcdefghijklmnop")}})
	}
	data := write(b, recs)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var rec Record
	n := 0
	for i := 0; i < b.N; i++ {
		r, err := NewReader(bytes.NewReader(data))
		require.NoError(b, err)
		for r.Read(&rec) == nil {
			n++
		}
		r.Close()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}

// TestReadsVersion1: a trace of the first version (no reply times) reads.
func TestReadsVersion1(t *testing.T) {
	var plain []byte
	meta := []byte(`{"source":"v1"}`)
	plain = binary.AppendUvarint(plain, uint64(len(meta)))
	plain = append(plain, meta...)
	plain = binary.AppendVarint(plain, 5) // 5 µs
	plain = append(plain, 1, 0, 1, 4)     // connection 1, database 0, one argument of 4 bytes
	plain = append(plain, "PING"...)      //
	plain = append(plain, ReplyStatus)    // a known reply, and no time after it in version 1
	plain = binary.AppendVarint(plain, 1) // the next record, 1 µs later
	plain = append(plain, 1, 0, 1, 4, 'P', 'I', 'N', 'G', ReplyUnknown)
	var buf bytes.Buffer
	buf.WriteString("TBTRACE1")
	zw, err := zstd.NewWriter(&buf)
	require.NoError(t, err)
	_, err = zw.Write(plain)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	r, err := NewReader(&buf)
	require.NoError(t, err)
	defer r.Close()
	var rec Record
	require.NoError(t, r.Read(&rec))
	assert.Equal(t, ReplyStatus, rec.Reply)
	assert.Equal(t, 5*time.Microsecond, rec.At)
	require.NoError(t, r.Read(&rec))
	assert.Equal(t, 6*time.Microsecond, rec.At)
	assert.Equal(t, io.EOF, r.Read(&rec))
}

// BenchmarkStreamHour writes a one-hour trace of TRACE_RECORDS commands
// (100,000,000 by default: 27,778 a second) from 1,000 connections over
// 1,000,000 keys, then reads it back, reporting the reader's peak heap
// (sampled every 1,000,000 records), its records per second and the
// file's size: the reader holds one record, whatever the trace's length.
func BenchmarkStreamHour(b *testing.B) {
	n, err := strconv.Atoi(cmp.Or(os.Getenv("TRACE_RECORDS"), "100000000"))
	require.NoError(b, err)
	path := filepath.Join(b.TempDir(), "hour.tbt")
	f, err := os.Create(path)
	require.NoError(b, err)
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := NewWriter(bw, Meta{Source: "bench"})
	require.NoError(b, err)
	gap := time.Hour / time.Duration(n)
	key := make([]byte, 0, 32)
	args := [][]byte{[]byte("GET"), nil}
	for i := range n {
		key = strconv.AppendInt(append(key[:0], "user:"...), int64(i%1_000_000), 10)
		args[1] = key
		require.NoError(b, w.Write(Record{At: time.Duration(i) * gap, Conn: uint32(i % 1000), Args: args}))
	}
	require.NoError(b, w.Close())
	require.NoError(b, bw.Flush())
	require.NoError(b, f.Close())
	st, err := os.Stat(path)
	require.NoError(b, err)
	runtime.GC()
	b.ResetTimer()
	var peak uint64
	read := 0
	for range b.N {
		f, err := os.Open(path)
		require.NoError(b, err)
		r, err := NewReader(f)
		require.NoError(b, err)
		var rec Record
		var ms runtime.MemStats
		for r.Read(&rec) == nil {
			if read++; read%1_000_000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		r.Close()
		f.Close()
	}
	require.Equal(b, n*b.N, read)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
}
