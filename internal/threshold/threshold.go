// Package threshold turns a run into a pass/fail gate, as k6's thresholds
// do: "p99<2ms", "errors<0.1%", "qps>50000", per operation "GET:p99<1ms".
// It parses them, evaluates them on a finished run (or a merged one), on
// the live per-second figures for an early abort, and writes the verdicts
// as JUnit XML.
package threshold

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// Threshold is one parsed condition.
type Threshold struct {
	// Source is the text as given.
	Source string
	// Op, when set, is the operation it applies to ("GET"); else the run.
	Op string
	// Metric is p50, p90, p99, p99.9, max, mean, errors, qps or
	// lost_writes.
	Metric string
	// Less is true for < and <=; Equal for <= and >=.
	Less, Equal bool
	// Value is in microseconds (latency), a fraction (errors) or per
	// second (qps).
	Value float64
}

var form = regexp.MustCompile(`^(?:([A-Za-z0-9_.\-]+):)?(p50|p90|p99|p99\.9|p999|max|mean|avg|errors|qps|lost_writes)\s*(<=|>=|<|>)\s*([0-9.]+)\s*([a-zA-Zµ%]*)$`)

// LostWrites is the write ledger's threshold every run with a ledger is
// held to unless it names its own: no acknowledged write lost.
const LostWrites = "lost_writes<1"

// Parse reads one threshold.
func Parse(s string) (Threshold, error) {
	m := form.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Threshold{}, fmt.Errorf("threshold %q: want [OP:]METRIC<VALUE (p50 p90 p99 p99.9 max mean: a latency with us, ms or s; "+
			"errors: a percentage; qps: per second; lost_writes: a count), e.g. p99<2ms, errors<0.1%%, qps>50000, GET:p99<1ms, lost_writes<1", s)
	}
	t := Threshold{Source: strings.TrimSpace(s), Op: m[1], Metric: m[2], Less: m[3][0] == '<', Equal: len(m[3]) == 2}
	switch t.Metric {
	case "avg":
		t.Metric = "mean"
	case "p999":
		t.Metric = "p99.9"
	}
	v, err := strconv.ParseFloat(m[4], 64)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %q is not a number", s, m[4])
	}
	unit := m[5]
	switch t.Metric {
	case "errors":
		if unit != "%" {
			return Threshold{}, fmt.Errorf("threshold %q: errors take a percentage (errors<0.1%%)", s)
		}
		t.Value = v / 100
	case "qps":
		if unit != "" {
			return Threshold{}, fmt.Errorf("threshold %q: qps takes a plain number of commands per second", s)
		}
		t.Value = v
	case "lost_writes":
		if unit != "" || t.Op != "" {
			return Threshold{}, fmt.Errorf("threshold %q: lost_writes takes a plain count, for the whole run (lost_writes<1)", s)
		}
		t.Value = v
	default:
		mult := map[string]float64{"us": 1, "µs": 1, "ms": 1e3, "s": 1e6}[unit]
		if mult == 0 {
			return Threshold{}, fmt.Errorf("threshold %q: a latency needs its unit (us, ms or s)", s)
		}
		t.Value = v * mult
	}
	return t, nil
}

// ParseAll reads every threshold; the first bad one is the error.
func ParseAll(ss []string) ([]Threshold, error) {
	var out []Threshold
	for _, s := range ss {
		t, err := Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// holds says whether observed meets the threshold.
func (t Threshold) holds(observed float64) bool {
	switch {
	case t.Less && t.Equal:
		return observed <= t.Value
	case t.Less:
		return observed < t.Value
	case t.Equal:
		return observed >= t.Value
	}
	return observed > t.Value
}

// figures is what a threshold reads from: the run's or one operation's.
type figures struct {
	ops, errors, attempted int64
	opsPerSec              float64
	lat                    result.Latency
	measure                result.LatencyMeasure
}

// pick finds the figures t applies to; ok is false, with the reason, when
// the run has no such operation.
func pick(t Threshold, r *result.Run) (figures, string) {
	tot := r.Totals
	f := figures{ops: tot.Ops, errors: tot.Errors, attempted: tot.Ops + tot.LostOps, opsPerSec: tot.OpsPerSec}
	f.lat, f.measure = tot.Headline()
	if t.Op == "" {
		return f, ""
	}
	var names []string
	for _, op := range r.Operations {
		names = append(names, op.Name)
		if strings.EqualFold(op.Name, t.Op) {
			f = figures{ops: op.Ops, errors: op.Errors, attempted: op.Ops, opsPerSec: op.OpsPerSec, lat: op.Of(f.measure), measure: f.measure}
			return f, ""
		}
	}
	if len(r.Operations) == 0 && strings.EqualFold(commandName(r.Command), t.Op) {
		return f, "" // one command: the run is that operation
	}
	if len(names) == 0 {
		names = []string{commandName(r.Command)}
	}
	return f, fmt.Sprintf("no operation %s in this run (it has %s)", t.Op, strings.Join(names, ", "))
}

func commandName(cmd string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(cmd), " ")
	return strings.ToUpper(name)
}

// Evaluate checks every threshold on a finished (or merged) run.
func Evaluate(ts []Threshold, r *result.Run) []result.ThresholdVerdict {
	var out []result.ThresholdVerdict
	for _, t := range ts {
		f, why := pick(t, r)
		v := result.ThresholdVerdict{Threshold: t.Source}
		if why != "" {
			v.Note = why
			out = append(out, v)
			continue
		}
		switch t.Metric {
		case "lost_writes":
			v.Unit = " writes"
			if r.Ledger == nil {
				v.Note = "no write ledger in this run (--verify-writes)"
			} else {
				v.Observed = float64(r.Ledger.LostAcknowledged)
				v.Pass = r.Ledger.ReadError == "" && t.holds(v.Observed)
				v.Note = "acknowledged writes not on the server"
				if r.Ledger.ReadError != "" {
					v.Note = "the counters could not be read back"
				}
			}
		case "errors":
			v.Observed, v.Unit = 0, "%"
			if f.attempted > 0 {
				v.Observed = float64(f.errors) / float64(f.attempted) * 100
			}
			v.Pass = t.holds(v.Observed / 100)
		case "qps":
			v.Observed, v.Unit = f.opsPerSec, "/s"
			v.Pass = t.holds(v.Observed)
		default:
			us := map[string]float64{"p50": f.lat.P50, "p90": f.lat.P90, "p99": f.lat.P99, "p99.9": f.lat.P999, "max": f.lat.Max, "mean": f.lat.Mean}[t.Metric]
			v.Observed, v.Unit = us/1000, "ms"
			v.Pass = f.ops > 0 && t.holds(us)
			if f.ops == 0 {
				v.Note = "no command completed: no latency to judge"
			} else {
				v.Note = f.measure.Label()
			}
		}
		out = append(out, v)
	}
	return out
}

// Failed says whether any verdict failed.
func Failed(vs []result.ThresholdVerdict) bool {
	for _, v := range vs {
		if !v.Pass {
			return true
		}
	}
	return false
}

// Live checks the thresholds a run can be stopped on while it runs (the
// whole run's latency ceilings and error ceilings, read from the
// cumulative per-second figures) and returns the first that already
// fails, or "". Floors (qps>…) and per-operation thresholds are left to
// the end: an early second says nothing of them.
func Live(ts []Threshold, p stats.Progress, attempted int64) string {
	for _, t := range ts {
		if t.Op != "" || !t.Less {
			continue
		}
		switch t.Metric {
		case "errors":
			if attempted > 0 && !t.holds(float64(p.Errors)/float64(attempted)) {
				return fmt.Sprintf("%s (%.3f%% after %.0f s)", t.Source, 100*float64(p.Errors)/float64(attempted), p.Elapsed.Seconds())
			}
		case "p99":
			if p.TotalOps > 0 && !t.holds(p.P99US) {
				return fmt.Sprintf("%s (p99 %.3f ms after %.0f s, from the send)", t.Source, p.P99US/1000, p.Elapsed.Seconds())
			}
		case "mean":
			if p.TotalOps > 0 && !t.holds(p.MeanUS) {
				return fmt.Sprintf("%s (mean %.3f ms after %.0f s, from the send)", t.Source, p.MeanUS/1000, p.Elapsed.Seconds())
			}
		}
	}
	return ""
}

// Write prints one line per verdict.
func Write(w io.Writer, vs []result.ThresholdVerdict) {
	for _, v := range vs {
		mark := "PASS"
		if !v.Pass {
			mark = "FAIL"
		}
		note := ""
		if v.Note != "" {
			note = " (" + v.Note + ")"
		}
		fmt.Fprintf(w, "threshold %-22s %s: observed %.3f%s%s\n", v.Threshold, mark, v.Observed, v.Unit, note)
	}
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the verdicts as one JUnit test suite named name.
func WriteJUnit(w io.Writer, name string, vs []result.ThresholdVerdict) error {
	s := junitSuite{Name: name, Tests: len(vs)}
	for _, v := range vs {
		c := junitCase{Name: v.Threshold, ClassName: "tairbench." + name}
		if !v.Pass {
			s.Failures++
			msg := fmt.Sprintf("observed %.3f%s", v.Observed, v.Unit)
			if v.Note != "" {
				msg += " (" + v.Note + ")"
			}
			c.Failure = &junitFailure{Message: msg, Text: v.Threshold + ": " + msg}
		}
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
