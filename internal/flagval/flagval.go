// Package flagval holds flag value types shared by the command line and the
// front-ends that parse their own tools' options.
package flagval

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Seconds is a duration flag that takes whole or fractional seconds ("30",
// as the whitepaper's tools do) or a Go duration ("1m30s").
type Seconds struct{ D *time.Duration }

// String is the current value.
func (s Seconds) String() string {
	if s.D == nil {
		return "0s"
	}
	return s.D.String()
}

// Type names the value in usage lines.
func (s Seconds) Type() string { return "seconds" }

// Set parses v.
func (s Seconds) Set(v string) error {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 {
			return errors.New("must not be negative")
		}
		*s.D = time.Duration(n * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is neither seconds nor a duration such as 1m30s", v)
	}
	*s.D = d
	return nil
}

// ParseCount reads a whole number written plainly (100000), in
// scientific notation (1e5) or as a power of two (2^24).
func ParseCount(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if base, exp, ok := strings.Cut(s, "^"); ok {
		b, err1 := strconv.ParseUint(base, 10, 64)
		e, err2 := strconv.ParseUint(exp, 10, 64)
		if err1 != nil || err2 != nil || b < 2 || float64(e)*math.Log2(float64(b)) >= 64 {
			return 0, fmt.Errorf("%q: want N, NeM or B^E below 2^64", s)
		}
		v := uint64(1)
		for i := uint64(0); i < e; i++ {
			v *= b
		}
		return v, nil
	}
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f >= 1<<63 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%q: want a whole number (100000, 1e5 or 2^24)", s)
	}
	return uint64(f), nil
}

// ParseBytes reads a size: a number with an optional unit (B, KB, MB, GB,
// KiB, MiB, GiB; K, M and G are the binary ones).
func ParseBytes(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}[strings.ToLower(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || f < 0 {
		return 0, fmt.Errorf("%q: want a size such as 512MiB, 2GiB or 1000000", s)
	}
	return uint64(f * mult), nil
}

// Rate is a rate flag that also takes a multiple of a workload's own
// rate: "5000" is 5,000 requests a second, "2x" twice the workload's.
type Rate struct {
	PerSecond *float64
	Times     *float64
}

// String implements pflag.Value.
func (r Rate) String() string {
	switch {
	case r.Times != nil && *r.Times > 0:
		return strconv.FormatFloat(*r.Times, 'g', -1, 64) + "x"
	case r.PerSecond != nil:
		return strconv.FormatFloat(*r.PerSecond, 'g', -1, 64)
	}
	return "0"
}

// Type implements pflag.Value.
func (r Rate) Type() string { return "rate" }

// Set implements pflag.Value.
func (r Rate) Set(v string) error {
	if t, ok := strings.CutSuffix(strings.TrimSpace(v), "x"); ok {
		x, err := strconv.ParseFloat(t, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("want a multiple above 0, as 2x")
		}
		*r.Times, *r.PerSecond = x, 0
		return nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return fmt.Errorf("want requests per second (0 or more), or a multiple of the workload's rate, as 2x")
	}
	*r.PerSecond, *r.Times = x, 0
	return nil
}
