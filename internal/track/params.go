package track

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/fulltext"
)

// Value is one parameter value: as JSON (a quoted string or a number) and
// as text to put inside a JSON string.
type Value struct {
	JSON, Text []byte
}

// Pool holds one parameter's values, or a range's bounds.
type Pool struct {
	Values []Value
	// Lo, Hi and Width are a range parameter's observed bounds and the
	// share of them one query spans; Integer prints its bounds as integers.
	Lo, Hi, Width float64
	Integer       bool
	Range         bool
	// Why says why the pool is empty.
	Why string
}

// Empty says whether the pool can give no value.
func (p *Pool) Empty() bool {
	if p.Range {
		return math.IsInf(p.Lo, 0) || math.IsInf(p.Hi, 0)
	}
	return len(p.Values) == 0
}

// Limits on what a scan keeps.
const (
	maxPool     = 1000
	maxDistinct = 10000
	maxIDs      = 100000
)

// Scan is what reading the corpus once found: the documents, and what the
// parameter sources draw from.
type Scan struct {
	Docs int64
	// Pools are the parameter values, by parameter name.
	Pools map[string]*Pool
	// TermCounts is the distinct terms seen per terms field.
	TermCounts map[string]int
}

// ScanCorpus reads the whole corpus, refusing it when a line is not a JSON
// object (naming the first such line and the count), and builds the
// parameter pools.
func (t *Track) ScanCorpus() (*Scan, error) {
	m, err := fulltext.ParseMapping(t.Index.TairSearch)
	if err != nil {
		return nil, err
	}
	r, err := t.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	df := map[string]map[string]int{}
	distinct := map[string]map[string]Value{}
	lo, hi := map[string]float64{}, map[string]float64{}
	var ids []string
	for _, p := range t.Params {
		switch p.Kind {
		case "terms":
			df[p.Field] = map[string]int{}
		case "values":
			if len(p.Values) == 0 {
				distinct[p.Field] = map[string]Value{}
			}
		case "range":
			lo[p.Field], hi[p.Field] = math.Inf(1), math.Inf(-1)
		}
	}
	s := &Scan{Pools: map[string]*Pool{}, TermCounts: map[string]int{}}
	var bad int64
	var first *LineError
	var d Doc
	seen := map[string]bool{}
	for {
		err := r.Next(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			if bad++; first == nil {
				first = le
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		s.Docs++
		if len(ids) < maxIDs {
			ids = append(ids, d.ID)
		}
		for f, counts := range df {
			text, ok := d.Fields[f].(string)
			if !ok {
				continue
			}
			clear(seen)
			for _, term := range m.Fields[f].Terms(text) {
				if !seen[term] {
					seen[term] = true
					counts[term]++
				}
			}
		}
		for f, vals := range distinct {
			if v, ok := d.Fields[f]; ok && len(vals) < maxDistinct {
				val := valueOf(v)
				vals[string(val.JSON)] = val
			}
		}
		for f := range lo {
			if x, ok := d.Fields[f].(float64); ok {
				lo[f], hi[f] = math.Min(lo[f], x), math.Max(hi[f], x)
			}
		}
	}
	if bad > 0 {
		return nil, fmt.Errorf("%w (%d of %d lines are not JSON objects; nothing was written)", first, bad, bad+s.Docs)
	}
	if s.Docs == 0 {
		return nil, fmt.Errorf("corpus: no documents")
	}
	for name, p := range t.Params {
		pool, err := t.pool(p, m, df, distinct, lo, hi, ids)
		if err != nil {
			return nil, fmt.Errorf("param %s: %w", name, err)
		}
		s.Pools[name] = pool
	}
	for f, c := range df {
		s.TermCounts[f] = len(c)
	}
	return s, nil
}

func (t *Track) pool(p Param, m *fulltext.Mapping, df map[string]map[string]int, distinct map[string]map[string]Value,
	lo, hi map[string]float64, ids []string) (*Pool, error) {
	pool := &Pool{}
	switch p.Kind {
	case "terms":
		pool.Values = band(df[p.Field], p.Band)
		pool.Why = fmt.Sprintf("no %s terms in field %s", p.Band, p.Field)
	case "values":
		if len(p.Values) > 0 {
			for _, v := range p.Values {
				pool.Values = append(pool.Values, valueOf(v))
			}
			break
		}
		keys := make([]string, 0, len(distinct[p.Field]))
		for k := range distinct[p.Field] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			pool.Values = append(pool.Values, distinct[p.Field][k])
		}
		pool.Why = "field " + p.Field + " has no values in the corpus"
	case "range":
		f := m.Fields[p.Field]
		pool.Range, pool.Lo, pool.Hi, pool.Width = true, lo[p.Field], hi[p.Field], p.Width
		pool.Integer = f.Type == "long" || f.Type == "integer"
		if pool.Width == 0 {
			pool.Width = 0.1
		}
		pool.Why = "field " + p.Field + " has no numbers in the corpus"
	case "ids":
		for _, id := range ids {
			pool.Values = append(pool.Values, valueOf(id))
		}
		pool.Why = "no documents"
	case "file":
		vals, err := readValues(t.Path(p.File))
		if err != nil {
			return nil, err
		}
		pool.Values, pool.Why = vals, p.File+" has no lines"
	}
	return pool, nil
}

// band picks the terms of one document-frequency band: ranked by document
// frequency, head is the top 1 %, torso the next 9 %, tail the rest; at
// most maxPool of them, spread evenly over the band.
func band(df map[string]int, which string) []Value {
	terms := make([]string, 0, len(df))
	for t := range df {
		terms = append(terms, t)
	}
	sort.Slice(terms, func(i, j int) bool {
		if df[terms[i]] != df[terms[j]] {
			return df[terms[i]] > df[terms[j]]
		}
		return terms[i] < terms[j]
	})
	n := len(terms)
	h, to := int(math.Ceil(float64(n)*0.01)), int(math.Ceil(float64(n)*0.10))
	var sel []string
	switch which {
	case "head":
		sel = terms[:h]
	case "torso":
		sel = terms[h:to]
	default:
		sel = terms[to:]
	}
	step := max(1, len(sel)/maxPool)
	var out []Value
	for i := 0; i < len(sel) && len(out) < maxPool; i += step {
		out = append(out, valueOf(sel[i]))
	}
	return out
}

func valueOf(v any) Value {
	switch x := v.(type) {
	case string:
		j, _ := json.Marshal(x)
		return Value{JSON: j, Text: j[1 : len(j)-1]}
	case float64:
		b := strconv.AppendFloat(nil, x, 'f', -1, 64)
		return Value{JSON: b, Text: b}
	}
	j, _ := json.Marshal(v)
	return Value{JSON: j, Text: []byte(strings.Trim(string(j), `"`))}
}

func readValues(path string) ([]Value, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("parameter file: %w", err)
	}
	defer f.Close()
	var out []Value
	var line int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		line++
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, valueOf(l))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, scanErr("parameter file", path, line, err)
	}
	return out, nil
}
