package fulltext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatFloat prints a float as TairSearch does: rounded to 6 decimals,
// trailing zeros stripped, at least one decimal kept (1.0, 0.054363).
func FormatFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "null"
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	if s == "-0.0" {
		s = "0.0"
	}
	return s
}

// kv is one member of a JSON object, in document order.
type kv struct {
	Key string
	Val json.RawMessage
}

// parseObject splits a JSON object into its members, keeping their order.
func parseObject(raw []byte) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected a JSON object")
	}
	var out []kv
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, kv{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return out, nil
}

// writeObject renders members as a compact JSON object.
func writeObject(members []kv) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(m.Key))
		b.WriteByte(':')
		_ = json.Compact(&b, m.Val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// matchField reports whether a source filter pattern (a name, or a name with
// * wildcards) matches field name.
func matchField(pattern, name string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == name || strings.HasPrefix(name, pattern+".")
	}
	return wildcardMatch(pattern, name)
}

// wildcardMatch matches * (any run) and ? (one character).
func wildcardMatch(p, s string) bool {
	pr, sr := []rune(p), []rune(s)
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(sr) {
		switch {
		case pi < len(pr) && (pr[pi] == '?' || pr[pi] == sr[si]):
			pi++
			si++
		case pi < len(pr) && pr[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pr) && pr[pi] == '*' {
		pi++
	}
	return pi == len(pr)
}

// filterSource keeps the top-level members allowed by includes and excludes.
func filterSource(members []kv, includes, excludes []string) []kv {
	if len(includes) == 0 && len(excludes) == 0 {
		return members
	}
	out := make([]kv, 0, len(members))
	for _, m := range members {
		keep := len(includes) == 0
		for _, p := range includes {
			if matchField(p, m.Key) {
				keep = true
				break
			}
		}
		for _, p := range excludes {
			if matchField(p, m.Key) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}
