// Package flagval holds flag value types shared by the command line and the
// front-ends that parse their own tools' options.
package flagval

import (
	"errors"
	"fmt"
	"strconv"
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
