package resultset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// FailOn is a regression gate on a comparison: "p99>+10%" fails when B's
// p99 is more than 10% above A's, "qps<-5%" when B's QPS is more than 5%
// below A's.
type FailOn struct {
	Source string
	// Metric is the row it reads (qps, p50, p99, p99.9, max, errors, cpu).
	Metric string
	// Above: fail when the change is above Percent; else below it.
	Above   bool
	Percent float64
}

var failOnForm = regexp.MustCompile(`^(qps|p50|p99|p99\.9|max|errors|cpu)\s*([<>])\s*([+-]?[0-9.]+)%$`)

// ParseFailOn reads one --fail-on condition.
func ParseFailOn(s string) (FailOn, error) {
	m := failOnForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return FailOn{}, fmt.Errorf("--fail-on %q: want METRIC>+N%% or METRIC<-N%% (qps, p50, p99, p99.9, max, errors, cpu), e.g. p99>+10%%, qps<-5%%", s)
	}
	p, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return FailOn{}, fmt.Errorf("--fail-on %q: %q is not a number", s, m[3])
	}
	return FailOn{Source: strings.TrimSpace(s), Metric: m[1], Above: m[2] == ">", Percent: p}, nil
}

// Check judges the comparison's rows: the verdict passes unless B's change
// against A crosses the bound. The change is the measured one; the row's
// noise verdict is given beside it, not used to excuse it.
func (f FailOn) Check(rows []Row) result.ThresholdVerdict {
	v := result.ThresholdVerdict{Threshold: f.Source, Unit: "%"}
	for _, r := range rows {
		if r.Key != f.Metric {
			continue
		}
		if r.Incomparable != "" {
			v.Note = r.Metric + ": " + r.Incomparable
			return v
		}
		change := 100 * r.Change
		if r.A == 0 {
			change = 0
			if r.B > 0 {
				change = 100 // from none to some
			}
		}
		v.Observed = change
		v.Pass = (f.Above && change <= f.Percent) || (!f.Above && change >= f.Percent)
		v.Note = fmt.Sprintf("%s: A %.3f, B %.3f; %s", r.Metric, r.A, r.B, r.Verdict)
		return v
	}
	v.Note = "the comparison has no " + f.Metric + " row"
	return v
}
