package roaring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/pkg/result"

	rb "github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/pkg/resp"
)

// Distributions of TR.STAT sampling.
const (
	DistSparse = "sparse" // uniform offsets, density kept below 6.25%: array containers
	DistRandom = "random" // uniform offsets past 4096 per chunk: bitset containers
	DistRuns   = "runs"   // runs of consecutive bits, TR.OPTIMIZE after each step: run containers
)

// StatOptions configure TR.STAT sampling.
type StatOptions struct {
	Target        endpoint.Target
	Distributions []string
	// MaxCard is the cardinality of the last step.
	MaxCard uint64
	Steps   int
	// Universe bounds the offsets: [0, Universe). 2^32 is the whole space.
	Universe uint64
	// RunLength is the length of each run for DistRuns.
	RunLength int
	Seed      uint64
	Log       io.Writer
}

// StatFields is a parsed TR.STAT reply.
type StatFields struct {
	Cardinality, Containers, MaxValue, MinValue, SumValue uint64
	ArrayContainers, ArrayValues, ArrayBytes              uint64
	BitsetContainers, BitsetValues, BitsetBytes           uint64
	RunContainers, RunValues, RunBytes                    uint64
}

// Bytes is the container memory TR.STAT reports.
func (f StatFields) Bytes() uint64 { return f.ArrayBytes + f.BitsetBytes + f.RunBytes }

// ParseStat parses TR.STAT's plain reply (spec §2.4).
func ParseStat(s string) (StatFields, error) {
	var f StatFields
	dst := map[string]*uint64{
		"cardinality": &f.Cardinality, "number of containers": &f.Containers, "max value": &f.MaxValue,
		"min value": &f.MinValue, "sum value": &f.SumValue,
		"number of array containers": &f.ArrayContainers, "array container values": &f.ArrayValues, "array container bytes": &f.ArrayBytes,
		"number of bitset containers": &f.BitsetContainers, "bitset container values": &f.BitsetValues, "bitset container bytes": &f.BitsetBytes,
		"number of run containers": &f.RunContainers, "run container values": &f.RunValues, "run container bytes": &f.RunBytes,
	}
	seen := 0
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimLeft(line, "\t "), ": ")
		if !ok {
			return f, fmt.Errorf("TR.STAT line %d: no ': ' in %q", i+1, line)
		}
		p, known := dst[k]
		if !known {
			continue // a newer server may add fields
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return f, fmt.Errorf("TR.STAT line %d: %q is not a number", i+1, v)
		}
		*p = n
		seen++
	}
	if seen < len(dst) {
		return f, fmt.Errorf("TR.STAT reply has %d of the %d expected fields", seen, len(dst))
	}
	return f, nil
}

// StatRow is one step of a distribution (see result.StatRow).
type StatRow = result.StatRow

// StatTable is one distribution's rows (see result.StatTable).
type StatTable = result.StatTable

// predict applies the container rules to the client's copy of the bitmap.
func predict(m *rb.Bitmap, optimized bool) uint64 {
	var total uint64
	var chunk uint32 = 1 << 31 // none yet
	var card, runs uint64
	var prev uint32
	done := func() {
		if card == 0 {
			return
		}
		size := uint64(8192)
		if card <= 4096 {
			size = 2 * card
		}
		if optimized && 2+4*runs < size {
			size = 2 + 4*runs
		}
		total += size
	}
	it := m.ManyIterator()
	buf := make([]uint32, 4096)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, v := range buf[:n] {
			if hi := v >> 16; hi != chunk {
				done()
				chunk, card, runs = hi, 0, 0
			}
			if card == 0 || v != prev+1 {
				runs++
			}
			card++
			prev = v
		}
	}
	done()
	return total
}

// SampleStat grows one bitmap per distribution in steps and reads TR.STAT
// and INFO memory after each. A failing step ends its distribution but
// keeps the rows already measured.
func SampleStat(ctx context.Context, o StatOptions) ([]StatTable, error) {
	if o.Steps <= 0 {
		o.Steps = 6
	}
	if o.Universe == 0 || o.Universe > 1<<32 {
		o.Universe = 1 << 32
	}
	if o.RunLength <= 0 {
		o.RunLength = 1000
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	c, err := transport.Dial(ctx, o.Target)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var tables []StatTable
	for _, d := range o.Distributions {
		t, err := sampleOne(ctx, c, o, d, log)
		tables = append(tables, t)
		if err != nil {
			var re *transport.ReplyError
			if !errors.As(err, &re) && ctx.Err() == nil {
				// The connection itself failed: reconnect for the next distribution.
				c.Close()
				if c, err = transport.Dial(ctx, o.Target); err != nil {
					return tables, err
				}
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return tables, nil
}

func sampleOne(ctx context.Context, c *transport.Conn, o StatOptions, dist string, log io.Writer) (StatTable, error) {
	key := "tairbench:stat:" + dist
	t := StatTable{Distribution: dist}
	maxCard := o.MaxCard
	switch dist {
	case DistSparse:
		limit := uint64(float64(o.Universe) * 0.0625 * 0.95)
		maxCard = min(maxCard, limit)
		t.Description = fmt.Sprintf("uniform random offsets below %d, density below 6.25%%", o.Universe)
	case DistRandom:
		t.Description = fmt.Sprintf("uniform random offsets below %d", o.Universe)
	case DistRuns:
		t.Description = fmt.Sprintf("runs of %d consecutive bits at random offsets below %d, TR.OPTIMIZE after each step", o.RunLength, o.Universe)
	default:
		t.Error = "unknown distribution " + dist
		return t, errors.New(t.Error)
	}
	maxCard = min(maxCard, o.Universe)
	fail := func(err error) (StatTable, error) {
		t.Error = err.Error()
		fmt.Fprintf(log, "stat %s: %v (keeping %d rows)\n", dist, err, len(t.Rows))
		return t, err
	}
	if _, err := c.Do("DEL", key); err != nil {
		return fail(err)
	}
	base, err := usedMemory(c)
	if err != nil {
		return fail(err)
	}
	rng := rand.New(rand.NewPCG(o.Seed, uint64(len(dist))))
	mirror := rb.New()
	var buf []byte
	pending := 0
	send := func(args ...string) error {
		buf = resp.AppendCommand(buf, args...)
		pending++
		if pending < 16 {
			return nil
		}
		return drain(c, &buf, &pending)
	}
	for step := 1; step <= o.Steps; step++ {
		target := maxCard * uint64(step) / uint64(o.Steps)
		start := time.Now()
		for mirror.GetCardinality() < target {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			var err error
			if dist == DistRuns {
				s := rng.Uint64N(o.Universe - uint64(o.RunLength))
				mirror.AddRange(s, s+uint64(o.RunLength))
				err = send("TR.APPENDBITARRAY", key, strconv.FormatInt(int64(s)-1, 10), strings.Repeat("1", o.RunLength))
			} else {
				args := []string{"TR.SETBITS", key}
				for i := 0; i < 1000 && mirror.GetCardinality() < target; i++ {
					v := uint32(rng.Uint64N(o.Universe))
					mirror.Add(v)
					args = append(args, strconv.FormatUint(uint64(v), 10))
				}
				err = send(args...)
			}
			if err != nil {
				return fail(err)
			}
		}
		if err := drain(c, &buf, &pending); err != nil {
			return fail(err)
		}
		if dist == DistRuns {
			if rep, err := c.Do("TR.OPTIMIZE", key); err != nil || rep.IsError() {
				return fail(replyErr(rep, err))
			}
		}
		f, err := readStat(c, key)
		if err != nil {
			return fail(err)
		}
		used, err := usedMemory(c)
		if err != nil {
			return fail(err)
		}
		row := StatRow{Cardinality: f.Cardinality, RunC: f.RunContainers, ArrayC: f.ArrayContainers, BitsetC: f.BitsetContainers,
			HeapBytes: f.Bytes(), Predicted: predict(mirror, dist == DistRuns), UsedMemoryDelta: used - base,
			Seconds: time.Since(start).Seconds()}
		if row.Cardinality > 0 {
			row.BytesPerBit = float64(row.HeapBytes) / float64(row.Cardinality)
		}
		if row.Predicted > 0 {
			row.DiffPct = 100 * (float64(row.HeapBytes) - float64(row.Predicted)) / float64(row.Predicted)
		}
		if f.Cardinality != mirror.GetCardinality() {
			t.Rows = append(t.Rows, row)
			return fail(fmt.Errorf("server cardinality %d, client expected %d", f.Cardinality, mirror.GetCardinality()))
		}
		t.Rows = append(t.Rows, row)
		fmt.Fprintf(log, "stat %-6s step %d/%d: cardinality %d, %d bytes\n", dist, step, o.Steps, row.Cardinality, row.HeapBytes)
	}
	return t, nil
}

func replyErr(rep resp.Reply, err error) error {
	if err != nil {
		return err
	}
	return &transport.ReplyError{Msg: string(rep.Err)}
}

func drain(c *transport.Conn, buf *[]byte, pending *int) error {
	if *pending == 0 {
		return nil
	}
	if err := c.Write(*buf); err != nil {
		return err
	}
	*buf = (*buf)[:0]
	var firstErr error
	for ; *pending > 0; *pending-- {
		var rep resp.Reply
		if err := c.Read(&rep); err != nil {
			return err
		}
		if rep.IsError() && firstErr == nil {
			firstErr = &transport.ReplyError{Msg: string(rep.Err)}
		}
	}
	return firstErr
}

func readStat(c *transport.Conn, key string) (StatFields, error) {
	s, err := c.DoString("TR.STAT", key)
	if err != nil {
		return StatFields{}, err
	}
	return ParseStat(s)
}

func usedMemory(c *transport.Conn) (int64, error) {
	s, err := c.DoString("INFO", "memory")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("INFO memory has no used_memory")
}

// WriteStatTables prints the whitepaper's memory tables with the rules'
// prediction beside the measured figures.
func WriteStatTables(w io.Writer, tables []StatTable) error {
	var b strings.Builder
	for _, t := range tables {
		fmt.Fprintf(&b, "\nTR.STAT memory, %s: %s\n", t.Distribution, t.Description)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "cardinality\trle-c\tarray-c\tbitset-c\theap bytes\tbytes/bit\tpredicted\tdiff\tused_memory Δ\t")
		for _, r := range t.Rows {
			fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%.3f\t%d\t%+.2f%%\t%d\t\n", r.Cardinality, r.RunC, r.ArrayC, r.BitsetC,
				r.HeapBytes, r.BytesPerBit, r.Predicted, r.DiffPct, r.UsedMemoryDelta)
		}
		_ = tw.Flush()
		if t.Error != "" {
			fmt.Fprintf(&b, "!! WARNING: sampling stopped: %s\n", t.Error)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
