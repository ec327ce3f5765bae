package vector

import (
	"fmt"
	"strconv"
	"strings"
)

// Filter is a parsed attribute filter (tairvector.md §3.5): attribute
// names, numbers and double-quoted strings, combined with == != > < >= <=,
// + - * /, parentheses, && || and !. Spaces around operators are optional.
// Attributes are stored as strings and compare as numbers when both sides
// parse as numbers, as strings (lexicographically) otherwise; a comparison
// with a missing attribute is false.
type Filter struct{ root node }

// Attrs gives an entity's attribute by name.
type Attrs func(name string) (string, bool)

// Match says whether an entity's attributes pass the filter.
func (f *Filter) Match(attrs Attrs) bool {
	v := f.root.eval(attrs)
	return v.kind == kBool && v.b
}

// ParseFilter parses a filter expression; the error names the position.
func ParseFilter(s string) (*Filter, error) {
	p := &parser{s: s}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i < len(p.s) {
		return nil, p.errf("unexpected %q", p.s[p.i:])
	}
	return &Filter{root: n}, nil
}

type kind int

const (
	kMissing kind = iota
	kNum
	kStr
	kBool
)

type value struct {
	kind kind
	n    float64
	s    string
	b    bool
}

// num is the value as a number: a number, or a string that parses as one.
func (v value) num() (float64, bool) {
	switch v.kind {
	case kNum:
		return v.n, true
	case kStr:
		n, err := strconv.ParseFloat(v.s, 64)
		return n, err == nil
	}
	return 0, false
}

type node interface{ eval(Attrs) value }

type (
	numLit  float64
	strLit  string
	attrRef string
	notNode struct{ x node }
	negNode struct{ x node }
	binNode struct {
		op   string
		l, r node
	}
)

func (n numLit) eval(Attrs) value { return value{kind: kNum, n: float64(n)} }
func (n strLit) eval(Attrs) value { return value{kind: kStr, s: string(n)} }
func (n attrRef) eval(a Attrs) value {
	if s, ok := a(string(n)); ok {
		return value{kind: kStr, s: s}
	}
	return value{}
}
func (n notNode) eval(a Attrs) value {
	v := n.x.eval(a)
	if v.kind != kBool {
		return value{}
	}
	return value{kind: kBool, b: !v.b}
}
func (n negNode) eval(a Attrs) value {
	if x, ok := n.x.eval(a).num(); ok {
		return value{kind: kNum, n: -x}
	}
	return value{}
}

func (n binNode) eval(a Attrs) value {
	switch n.op {
	case "&&", "||":
		l := n.l.eval(a)
		lb := l.kind == kBool && l.b
		if n.op == "&&" && !lb || n.op == "||" && lb {
			return value{kind: kBool, b: lb}
		}
		r := n.r.eval(a)
		return value{kind: kBool, b: r.kind == kBool && r.b}
	case "+", "-", "*", "/":
		x, ok1 := n.l.eval(a).num()
		y, ok2 := n.r.eval(a).num()
		if !ok1 || !ok2 || n.op == "/" && y == 0 {
			return value{}
		}
		return value{kind: kNum, n: map[string]float64{"+": x + y, "-": x - y, "*": x * y, "/": x / y}[n.op]}
	}
	l, r := n.l.eval(a), n.r.eval(a)
	if l.kind == kMissing || r.kind == kMissing || l.kind == kBool || r.kind == kBool {
		return value{kind: kBool}
	}
	c, ok := compare(l, r)
	if !ok {
		return value{kind: kBool}
	}
	var b bool
	switch n.op {
	case "==":
		b = c == 0
	case "!=":
		b = c != 0
	case ">":
		b = c > 0
	case "<":
		b = c < 0
	case ">=":
		b = c >= 0
	case "<=":
		b = c <= 0
	}
	return value{kind: kBool, b: b}
}

// compare orders two values: as numbers when both are, as strings when
// both are text.
func compare(l, r value) (int, bool) {
	if x, ok := l.num(); ok {
		if y, ok := r.num(); ok {
			switch {
			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	}
	if l.kind == kStr && r.kind == kStr {
		return strings.Compare(l.s, r.s), true
	}
	return 0, false
}

type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) errf(format string, a ...any) error {
	return fmt.Errorf("filter: at %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *parser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// eat consumes op when it comes next.
func (p *parser) eat(op string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], op) {
		p.i += len(op)
		return true
	}
	return false
}

func (p *parser) or() (node, error) { return p.chain(p.and, "||") }

func (p *parser) and() (node, error) { return p.chain(p.not, "&&") }

// chain parses next (op next)*.
func (p *parser) chain(next func() (node, error), ops ...string) (node, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		op := ""
		for _, o := range ops {
			if p.eat(o) {
				op = o
				break
			}
		}
		if op == "" {
			return l, nil
		}
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = binNode{op: op, l: l, r: r}
	}
}

func (p *parser) not() (node, error) {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == '!' && !strings.HasPrefix(p.s[p.i:], "!=") {
		p.i++
		x, err := p.deeper(p.not)
		return notNode{x}, err
	}
	return p.cmp()
}

func (p *parser) cmp() (node, error) {
	l, err := p.sum()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", ">=", "<=", ">", "<"} {
		if p.eat(op) {
			r, err := p.sum()
			if err != nil {
				return nil, err
			}
			return binNode{op: op, l: l, r: r}, nil
		}
	}
	return l, nil
}

func (p *parser) sum() (node, error) { return p.chain(p.prod, "+", "-") }

func (p *parser) prod() (node, error) { return p.chain(p.unary, "*", "/") }

func (p *parser) unary() (node, error) {
	if p.eat("-") {
		x, err := p.deeper(p.unary)
		return negNode{x}, err
	}
	return p.primary()
}

// deeper parses one nesting level more, refusing more than 64 (a filter
// is one argument of a request, bounded, but nesting costs stack).
func (p *parser) deeper(f func() (node, error)) (node, error) {
	if p.depth++; p.depth > 64 {
		return nil, p.errf("nested more than 64 deep")
	}
	defer func() { p.depth-- }()
	return f()
}

func (p *parser) primary() (node, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, p.errf("expression ends early")
	}
	switch c := p.s[p.i]; {
	case c == '(':
		p.i++
		n, err := p.deeper(p.or)
		if err != nil {
			return nil, err
		}
		if !p.eat(")") {
			return nil, p.errf("missing ')'")
		}
		return n, nil
	case c == '"':
		end := strings.IndexByte(p.s[p.i+1:], '"')
		if end < 0 {
			return nil, p.errf("unterminated string")
		}
		lit := p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		return strLit(lit), nil
	case c >= '0' && c <= '9' || c == '.':
		j := p.i
		for j < len(p.s) && (isDigit(p.s[j]) || p.s[j] == '.' || p.s[j] == 'e' || p.s[j] == 'E' ||
			(p.s[j] == '-' || p.s[j] == '+') && j > p.i && (p.s[j-1] == 'e' || p.s[j-1] == 'E')) {
			j++
		}
		n, err := strconv.ParseFloat(p.s[p.i:j], 64)
		if err != nil {
			return nil, p.errf("bad number %q", p.s[p.i:j])
		}
		p.i = j
		return numLit(n), nil
	case isNameStart(c):
		j := p.i
		for j < len(p.s) && (isNameStart(p.s[j]) || isDigit(p.s[j])) {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		return attrRef(name), nil
	default:
		return nil, p.errf("unexpected %q", string(c))
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
