package track

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Template is a query body with {{name}} placeholders. A JSON string that
// is only a placeholder ("{{price.from}}") becomes the value with its own
// JSON type (a number stays a number); a placeholder inside a longer
// string is replaced by the value's text.
type Template struct {
	segs []segment
}

type segment struct {
	lit   []byte
	ref   string // "" for a literal
	whole bool   // the placeholder was the whole JSON string
}

// Compile parses a template body.
func Compile(body json.RawMessage) (*Template, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	s := b.Bytes()
	if len(s) == 0 || s[0] != '{' {
		return nil, fmt.Errorf("body must be a JSON object")
	}
	t := &Template{}
	for len(s) > 0 {
		i := bytes.Index(s, []byte("{{"))
		if i < 0 {
			t.segs = append(t.segs, segment{lit: s})
			break
		}
		j := bytes.Index(s[i:], []byte("}}"))
		if j < 0 {
			return nil, fmt.Errorf("unclosed {{ at %q", clip(s[i:]))
		}
		ref := string(bytes.TrimSpace(s[i+2 : i+j]))
		if ref == "" {
			return nil, fmt.Errorf("empty {{}}")
		}
		end := i + j + 2
		whole := i > 0 && s[i-1] == '"' && end < len(s) && s[end] == '"'
		lit := s[:i]
		if whole {
			lit, end = s[:i-1], end+1
		}
		t.segs = append(t.segs, segment{lit: lit}, segment{ref: ref, whole: whole})
		s = s[end:]
	}
	return t, nil
}

func clip(b []byte) string {
	if len(b) > 30 {
		return string(b[:30]) + "…"
	}
	return string(b)
}

// Params lists the template's placeholders in order.
func (t *Template) Params() []string {
	var out []string
	for _, s := range t.segs {
		if s.ref != "" {
			out = append(out, s.ref)
		}
	}
	return out
}

// Bound is a template whose placeholders point at their value pools.
type Bound struct {
	segs   []boundSeg
	ranges []*Pool
}

type boundSeg struct {
	lit   []byte
	pool  *Pool
	sub   int // 0: the value; 1: a range's from; 2: its to
	rng   int // index into ranges
	whole bool
}

// Bind resolves the placeholders against pools.
func (t *Template) Bind(pools map[string]*Pool) (*Bound, error) {
	b := &Bound{}
	for _, s := range t.segs {
		if s.ref == "" {
			b.segs = append(b.segs, boundSeg{lit: s.lit})
			continue
		}
		name, sub := s.ref, 0
		if n, ok := cutSuffix(s.ref, ".from"); ok {
			name, sub = n, 1
		} else if n, ok := cutSuffix(s.ref, ".to"); ok {
			name, sub = n, 2
		}
		p := pools[name]
		if p == nil {
			return nil, fmt.Errorf("unknown parameter {{%s}}", s.ref)
		}
		if p.Empty() {
			return nil, fmt.Errorf("parameter {{%s}} has no values (%s)", s.ref, p.Why)
		}
		bs := boundSeg{pool: p, sub: sub, whole: s.whole, rng: -1}
		if sub > 0 {
			for i, r := range b.ranges {
				if r == p {
					bs.rng = i
				}
			}
			if bs.rng < 0 {
				bs.rng = len(b.ranges)
				b.ranges = append(b.ranges, p)
			}
		}
		b.segs = append(b.segs, bs)
	}
	if len(b.ranges) > maxRanges {
		return nil, fmt.Errorf("at most %d ranges in one template", maxRanges)
	}
	return b, nil
}

func cutSuffix(s, suf string) (string, bool) {
	if len(s) > len(suf) && s[len(s)-len(suf):] == suf {
		return s[:len(s)-len(suf)], true
	}
	return s, false
}

const maxRanges = 8

// Expand appends one query to dst, drawing its values with r. It does
// not allocate once dst has grown to the template's size.
func (b *Bound) Expand(dst []byte, r *rand.Rand) []byte {
	var from [maxRanges]float64
	for i, p := range b.ranges {
		from[i] = p.Lo + r.Float64()*(p.Hi-p.Lo)*(1-p.Width)
	}
	for _, s := range b.segs {
		if s.pool == nil {
			dst = append(dst, s.lit...)
			continue
		}
		if s.sub > 0 {
			v := from[s.rng]
			if s.sub == 2 {
				v += (s.pool.Hi - s.pool.Lo) * s.pool.Width
			}
			if s.pool.Integer {
				dst = strconv.AppendInt(dst, int64(v), 10)
			} else {
				dst = strconv.AppendFloat(dst, v, 'f', -1, 64)
			}
			continue
		}
		v := &s.pool.Values[r.IntN(len(s.pool.Values))]
		if s.whole {
			dst = append(dst, v.JSON...)
		} else {
			dst = append(dst, v.Text...)
		}
	}
	return dst
}
