// Package trace is tairbench's capture format: the commands a server
// received, in order, each with its time, connection, database, arguments
// and reply kind when known. A trace is a stream: a fixed header, then a
// zstd-compressed sequence of records, written and read one record at a
// time in bounded memory.
//
// On disk: the 8 bytes "TBTRACE2", then zstd: a metadata block
// (uvarint length, JSON) and records, each
//
//	zigzag-varint time since the previous record (µs)
//	uvarint connection, uvarint database, uvarint argument count
//	per argument: uvarint length, bytes
//	one byte: the reply's kind (0: unknown)
//	when the kind is known: uvarint time from the command to its reply (µs),
//	and uvarint its length (a bulk's bytes, an array's elements; else 0)
//
// Version 1 (TBTRACE1) records end at the reply's kind; they are read too.
package trace

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Magic opens every trace file; its last byte is the format's version.
const Magic = "TBTRACE2"

// Reply kinds a record may carry (what the server answered, when the
// capture saw it).
const (
	ReplyUnknown byte = iota
	ReplyStatus
	ReplyError
	ReplyInteger
	ReplyBulk
	ReplyNull
	ReplyArray
)

// KindName names a reply kind ("unknown" for ReplyUnknown).
func KindName(k byte) string {
	names := [...]string{"unknown", "status", "error", "integer", "bulk", "null", "array"}
	if int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// KindOf is a reply's kind as a trace names it, from its RESP type and
// nullness.
func KindOf(typ byte, null bool) byte {
	switch {
	case null || typ == '_':
		return ReplyNull
	case typ == '+':
		return ReplyStatus
	case typ == '-' || typ == '!':
		return ReplyError
	case typ == ':' || typ == ',' || typ == '(' || typ == '#':
		return ReplyInteger
	case typ == '$' || typ == '=':
		return ReplyBulk
	}
	return ReplyArray
}

// Count is a name (a command's, most often) and how often it came.
type Count struct {
	Name string `json:"name" yaml:"name"`
	N    int64  `json:"count" yaml:"count"`
}

// Counts is a tally of names, most first, then by name.
func Counts(m map[string]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, v := range m {
		out = append(out, Count{k, v})
	}
	slices.SortFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Name, b.Name))
	})
	return out
}

// Limits a reader holds a record to, so that a corrupt file cannot make
// it allocate without bound.
const (
	maxArgs    = 1 << 20
	maxArgLen  = 512 << 20
	maxMetaLen = 1 << 20
)

// Meta describes a trace: where it came from and when it started.
type Meta struct {
	// Source says how the commands were captured ("redis-cli monitor
	// text: FILE", …).
	Source string `json:"source"`
	// Start is the first record's wall-clock time.
	Start time.Time `json:"start"`
	// Anonymized says that keys and values were replaced.
	Anonymized bool `json:"anonymized,omitempty"`
}

// Record is one command. Args (the command's name first) may point into
// the reader's buffer: they are valid until the next Read.
type Record struct {
	// At is the time since the trace's start.
	At   time.Duration
	Conn uint32
	DB   uint32
	Args [][]byte
	// Reply is the reply's kind (ReplyUnknown when the capture did not
	// see it); ReplyAfter the time from the command to its reply (a
	// packet capture's, server and network; 0 when unknown).
	Reply      byte
	ReplyAfter time.Duration
	// ReplyLen is a bulk reply's length in bytes, or an array's in
	// elements (0 for other kinds, or unknown).
	ReplyLen int64
}

// Writer writes a trace.
type Writer struct {
	zw   *zstd.Encoder
	bw   *bufio.Writer
	last time.Duration
	n    int64
	buf  []byte
}

// NewWriter starts a trace on w with its metadata.
func NewWriter(w io.Writer, m Meta) (*Writer, error) {
	if _, err := io.WriteString(w, Magic); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	tw := &Writer{zw: zw, bw: bufio.NewWriterSize(zw, 64<<10)}
	meta, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	tw.buf = binary.AppendUvarint(tw.buf[:0], uint64(len(meta)))
	tw.buf = append(tw.buf, meta...)
	_, err = tw.bw.Write(tw.buf)
	return tw, err
}

// Write appends a record; records are kept in the order written.
func (w *Writer) Write(r Record) error {
	b := binary.AppendVarint(w.buf[:0], int64((r.At-w.last)/time.Microsecond))
	w.last += (r.At - w.last) / time.Microsecond * time.Microsecond
	b = binary.AppendUvarint(b, uint64(r.Conn))
	b = binary.AppendUvarint(b, uint64(r.DB))
	b = binary.AppendUvarint(b, uint64(len(r.Args)))
	for _, a := range r.Args {
		b = binary.AppendUvarint(b, uint64(len(a)))
		b = append(b, a...)
	}
	b = append(b, r.Reply)
	if r.Reply != ReplyUnknown {
		b = binary.AppendUvarint(b, uint64(max(r.ReplyAfter, 0)/time.Microsecond))
		b = binary.AppendUvarint(b, uint64(max(r.ReplyLen, 0)))
	}
	w.buf = b
	w.n++
	if _, err := w.bw.Write(b); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// Records is how many records were written.
func (w *Writer) Records() int64 { return w.n }

// Close ends the trace (its compressed stream); the underlying writer is
// the caller's to close.
func (w *Writer) Close() error {
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return w.zw.Close()
}

// Reader reads a trace record by record.
type Reader struct {
	v1   bool // a version 1 trace: no reply times
	zr   *zstd.Decoder
	br   *countingReader
	meta Meta
	at   time.Duration
	n    int64
	args [][]byte
	data []byte
	lens []int
}

// ErrNotATrace is a file that does not start with Magic.
var ErrNotATrace = errors.New("not a tairbench trace (it does not start with " + Magic + ")")

// CorruptError is a trace that ends inside a record, or holds one that
// cannot be; Offset is in the decompressed stream.
type CorruptError struct {
	Record int64
	Offset int64
	Why    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("trace: record %d at byte %d of the stream: %s", e.Record, e.Offset, e.Why)
}

// NewReader reads a trace's header and metadata from r.
func NewReader(r io.Reader) (*Reader, error) {
	head := make([]byte, len(Magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head[:len(Magic)-1]) != Magic[:len(Magic)-1] {
		return nil, ErrNotATrace
	}
	if v := head[len(Magic)-1]; v != Magic[len(Magic)-1] && v != '1' {
		return nil, fmt.Errorf("trace format version %c: this tairbench reads versions 1 and %c", v, Magic[len(Magic)-1])
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	tr := &Reader{zr: zr, br: &countingReader{r: bufio.NewReaderSize(zr, 64<<10)}, v1: head[len(Magic)-1] == '1'}
	n, err := binary.ReadUvarint(tr.br)
	if err != nil || n > maxMetaLen {
		return nil, tr.corrupt(cut(err, "its metadata"))
	}
	meta := make([]byte, n)
	if _, err := io.ReadFull(tr.br, meta); err != nil {
		return nil, tr.corrupt(cut(err, "its metadata"))
	}
	if err := json.Unmarshal(meta, &tr.meta); err != nil {
		return nil, tr.corrupt("metadata is not JSON: " + err.Error())
	}
	return tr, nil
}

// Meta is the trace's metadata.
func (r *Reader) Meta() Meta { return r.meta }

// Read reads the next record into rec; io.EOF after the last.
func (r *Reader) Read(rec *Record) error {
	start := r.br.n
	dt, err := binary.ReadVarint(r.br)
	if err == io.EOF && r.br.n == start {
		return io.EOF
	}
	if err != nil {
		return r.corrupt(cut(err, "its time"))
	}
	var v [3]uint64
	for i, what := range []string{"its connection", "its database", "its argument count"} {
		if v[i], err = binary.ReadUvarint(r.br); err != nil {
			return r.corrupt(cut(err, what))
		}
	}
	if v[2] > maxArgs || v[0] > 1<<32-1 || v[1] > 1<<32-1 {
		return r.corrupt("a field past its bounds")
	}
	r.args, r.data, r.lens = r.args[:0], r.data[:0], r.lens[:0]
	for i := uint64(0); i < v[2]; i++ {
		l, err := binary.ReadUvarint(r.br)
		if err != nil || l > maxArgLen {
			return r.corrupt(cut(err, fmt.Sprintf("argument %d's length", i+1)))
		}
		off := len(r.data)
		r.data = slices.Grow(r.data, int(l))[:off+int(l)]
		if _, err := io.ReadFull(r.br, r.data[off:]); err != nil {
			return r.corrupt(cut(err, fmt.Sprintf("argument %d", i+1)))
		}
		r.lens = append(r.lens, int(l))
	}
	reply, err := r.br.ReadByte()
	if err != nil {
		return r.corrupt(cut(err, "its reply kind"))
	}
	var after, length uint64
	if reply != ReplyUnknown && !r.v1 {
		if after, err = binary.ReadUvarint(r.br); err != nil {
			return r.corrupt(cut(err, "its reply's time"))
		}
		if length, err = binary.ReadUvarint(r.br); err != nil {
			return r.corrupt(cut(err, "its reply's length"))
		}
	}
	off := 0
	for _, l := range r.lens {
		r.args = append(r.args, r.data[off:off+l:off+l])
		off += l
	}
	r.at += time.Duration(dt) * time.Microsecond
	*rec = Record{At: r.at, Conn: uint32(v[0]), DB: uint32(v[1]), Args: r.args, Reply: reply,
		ReplyAfter: time.Duration(min(after, 1<<40)) * time.Microsecond, ReplyLen: int64(min(length, 1<<62))}
	r.n++
	return nil
}

// Close releases the decompressor.
func (r *Reader) Close() { r.zr.Close() }

func (r *Reader) corrupt(why string) error {
	return &CorruptError{Record: r.n + 1, Offset: r.br.n, Why: why}
}

// cut says what was missing when the stream ended, or what went wrong.
func cut(err error, what string) string {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "the trace ends inside " + what
	}
	return what + ": " + err.Error()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
