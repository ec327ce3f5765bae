// Package harness is what every front-end's Run shares: the streams it
// writes to (IO), exit statuses (ExitError), seeds and shards, the dry
// run's plan and the live metrics around a run. Result files and the
// summary are package output's; targets are package target's. It imports
// no cobra: the command line maps flags to a front-end's options and
// calls its Run.
package harness

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// IO is where a front-end reads and writes, and the tool version its
// results record.
type IO struct {
	Out, Err io.Writer
	In       io.Reader
	Version  string
}

// Captured is an IO whose output and errors go to the buffers it returns
// and whose input is empty: for tests, and for programs that run a
// front-end and read what it printed.
func Captured(version string) (IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return IO{Out: &out, Err: &errb, In: strings.NewReader(""), Version: version}, &out, &errb
}

// ExitError carries an exit code other than 1 (any other error exits 1).
type ExitError struct {
	Code int
	Err  error
}

// Error returns the wrapped error's message.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// Exit codes.
const (
	ExitOK        = 0
	ExitError1    = 1 // bad input, cannot connect, cannot write output
	ExitRunFailed = 3 // the run completed but most commands failed
	// ExitThreshold: the run completed but a --threshold failed (as k6).
	ExitThreshold = 99
)

// RunFailed is exit status 3 with err.
func RunFailed(err error) error { return &ExitError{Code: ExitRunFailed, Err: err} }

// SeedOrNew returns seed, or a new random base seed when it is 0.
func SeedOrNew(seed uint64) uint64 {
	if seed == 0 {
		return engine.NewSeed()
	}
	return seed
}

// Shard is one client's part of a load from several machines.
type Shard struct {
	// I and N: this client is I of N (0, 1 alone).
	I, N int
	// StartAt, when set, is the wall-clock start every client waits for.
	StartAt time.Time
}

// ParseShard reads --shard (i/N) and --start-at (RFC 3339 or Unix seconds).
func ParseShard(shard, startAt string) (Shard, error) {
	s := Shard{N: 1}
	if shard != "" {
		a, b, ok := strings.Cut(shard, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return Shard{N: 1}, fmt.Errorf("--shard %q: want i/N with 0 ≤ i < N", shard)
		}
		s.I, s.N = i, n
	}
	if startAt == "" {
		return s, nil
	}
	if secs, err := strconv.ParseFloat(startAt, 64); err == nil {
		s.StartAt = time.Unix(0, int64(secs*1e9))
		return s, nil
	}
	at, err := time.Parse(time.RFC3339Nano, startAt)
	if err != nil {
		return s, fmt.Errorf("--start-at %q: want RFC 3339 (2026-11-23T15:00:00Z) or Unix seconds", startAt)
	}
	s.StartAt = at
	return s, nil
}

// Label is the shard as results record it ("i/N"; "" alone).
func (s Shard) Label() string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Record writes the shard into a run's configuration: its label and the
// start every shard waited for.
func (s Shard) Record(c *result.RunConfig) {
	c.Shard = s.Label()
	if !s.StartAt.IsZero() {
		at := s.StartAt.UTC()
		c.StartAt = &at
	}
}

// Seed is the shard's base seed: a stream of its own, derived from base.
func (s Shard) Seed(base uint64) uint64 {
	if s.N <= 1 {
		return base
	}
	return engine.WorkerSeed(base, 1_000_000+s.I)
}

// Ranges gives the shard its own slice of every sequential range.
func (s Shard) Ranges(o *cmdtmpl.Options) {
	if s.N <= 1 {
		return
	}
	for k := range o.Ranges {
		r := &o.Ranges[k]
		if r.Dist != cmdtmpl.Seq || r.Max == 0 {
			continue
		}
		size := r.Max / uint64(s.N)
		lo := uint64(s.I) * size
		if s.I == s.N-1 {
			size = r.Max - lo
		}
		r.Offset += lo
		r.Max = max(size, 1)
	}
}
