package bitmap

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	rb "github.com/RoaringBitmap/roaring/v2"
	"github.com/tairbench/tairbench/internal/compressed"
)

// ID file formats (--ids-format).
const (
	FormatText = "text" // decimal integers, one per line
	FormatU32  = "u32"  // little-endian uint32 records
	FormatU64  = "u64"  // little-endian uint64 records
)

// MaxID is the largest ID every structure takes: TairRoaring's and Redis
// bitmaps' offsets are 32-bit.
const MaxID = 1<<32 - 1

// IDSet is one set of IDs read or generated, with what the reading found.
type IDSet struct {
	Source string
	IDs    *rb.Bitmap
	// Read counts the IDs given, duplicates included.
	Read       uint64
	Duplicates uint64
}

// ReadIDFile reads a file of IDs (gzip-compressed or not, detected by its
// first bytes) in format; any bad record makes the whole file an error
// naming the line or byte offset.
func ReadIDFile(path, format string) (IDSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return IDSet{}, fmt.Errorf("--ids: %w", err)
	}
	defer f.Close()
	set, err := ReadIDs(f, format)
	set.Source = path
	if err != nil {
		return set, fmt.Errorf("%s: %w", path, err)
	}
	return set, nil
}

// ReadIDs reads IDs from r (plain, gzip, bzip2 or zstd) in format.
func ReadIDs(r io.Reader, format string) (IDSet, error) {
	plain, _, done, err := compressed.Reader(r, 1<<16)
	if err != nil {
		return IDSet{}, err
	}
	defer done()
	br := bufio.NewReaderSize(plain, 1<<16)
	set := IDSet{IDs: rb.New()}
	add := func(v uint64) {
		set.Read++
		if !set.IDs.CheckedAdd(uint32(v)) {
			set.Duplicates++
		}
	}
	switch format {
	case FormatText, "":
		err = readText(br, add)
	case FormatU32:
		err = readBinary(br, 4, add)
	case FormatU64:
		err = readBinary(br, 8, add)
	default:
		err = fmt.Errorf("unknown format %q (text, u32, u64)", format)
	}
	if err != nil {
		return IDSet{}, err
	}
	return set, nil
}

// readText takes one decimal integer per line; blank lines are skipped.
func readText(br *bufio.Reader, add func(uint64)) error {
	line := 0
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("line %d: longer than %d bytes: not an ID", line+1, br.Size())
		}
		if len(b) > 0 {
			line++
			if err := textID(bytes.TrimSpace(b), line, add); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", line+1, err)
		}
	}
}

func textID(b []byte, line int, add func(uint64)) error {
	if len(b) == 0 {
		return nil
	}
	if b[0] == '-' {
		return fmt.Errorf("line %d: %q is negative: IDs are 0 … %d", line, clip(b), uint64(MaxID))
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a whole number: IDs are 0 … %d, one per line", line, clip(b), uint64(MaxID))
	}
	if v > MaxID {
		return fmt.Errorf("line %d: %d is above %d, the largest offset TairRoaring and Redis bitmaps take", line, v, uint64(MaxID))
	}
	add(v)
	return nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// readBinary takes little-endian records of size bytes.
func readBinary(br *bufio.Reader, size int, add func(uint64)) error {
	rec := make([]byte, size)
	for off := int64(0); ; off += int64(size) {
		n, err := io.ReadFull(br, rec)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("byte offset %d: %d bytes left, not a whole %d-byte record: the file is truncated or not %s", off, n, size, map[int]string{4: FormatU32, 8: FormatU64}[size])
		case err != nil:
			return fmt.Errorf("byte offset %d: %w", off, err)
		}
		var v uint64
		if size == 4 {
			v = uint64(binary.LittleEndian.Uint32(rec))
		} else {
			v = binary.LittleEndian.Uint64(rec)
		}
		if v > MaxID {
			return fmt.Errorf("byte offset %d: %d is above %d, the largest offset TairRoaring and Redis bitmaps take", off, v, uint64(MaxID))
		}
		add(v)
	}
}
