package respbenchmark

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// defaultTimeout is resp-benchmark's own request timeout.
const defaultTimeout = 30 * time.Second

// keyDigits is the width of resp-benchmark's key numbers (key_%010d).
const keyDigits = 10

// zipfExponent is resp-benchmark's zipfian exponent.
const zipfExponent = 1.03

// piece is part of an argument: literal text or a placeholder.
type piece struct {
	lit         string
	placeholder []string // the words inside {…}; nil for literal text
}

// words splits a command into arguments: blanks outside quotes and
// placeholders separate them; "…" and '…' are literal text (no escapes);
// {…} is a placeholder, which may stand beside text in one argument (as
// resp-benchmark 0.2.5 sends "s{key uniform 3}" as one argument).
func words(cmd string) ([][]piece, error) {
	var out [][]piece
	var cur []piece
	inWord := false
	end := func() {
		if inWord {
			out = append(out, cur)
		}
		cur, inWord = nil, false
	}
	for i := 0; i < len(cmd); {
		switch c := cmd[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			end()
			i++
		case c == '"' || c == '\'':
			n := strings.IndexByte(cmd[i+1:], c)
			if n < 0 {
				return nil, fmt.Errorf("unterminated %c quote at byte %d", c, i+1)
			}
			cur, inWord = append(cur, piece{lit: cmd[i+1 : i+1+n]}), true
			i += n + 2
		case c == '{':
			n := strings.IndexByte(cmd[i:], '}')
			if n < 0 {
				return nil, fmt.Errorf("unterminated placeholder at byte %d: %q", i+1, cmd[i:])
			}
			cur, inWord = append(cur, piece{placeholder: strings.Fields(cmd[i+1 : i+n])}), true
			i += n + 1
		default:
			j := i
			for j < len(cmd) && !strings.ContainsRune(" \t\n\r{\"'", rune(cmd[j])) {
				j++
			}
			cur, inWord = append(cur, piece{lit: cmd[i:j]}), true
			i = j
		}
	}
	end()
	if len(out) == 0 {
		return nil, fmt.Errorf("the command is empty")
	}
	return out, nil
}

// Template is a resp-benchmark command as a tairbench command template.
type Template struct {
	// Text is the template (cmdtmpl's placeholders), Options its ranges
	// and value size.
	Text    string
	Options cmdtmpl.Options
}

// translator turns placeholders into ranges: one range for each kind of
// draw, and one for each {key sequence N} (each keeps its own counter, as
// resp-benchmark's placeholders do).
type translator struct {
	t      Template
	used   int
	shared map[string]int // "uniform 100" → range number
	ranges int            // {range …} tags
	value  int            // {value N}'s size, 0 before the first
}

// Translate turns a resp-benchmark command into a template.
func Translate(cmd string) (Template, error) {
	ws, err := words(cmd)
	if err != nil {
		return Template{}, err
	}
	tr := &translator{shared: map[string]int{}}
	var args []string
	want := 0
	for _, w := range ws {
		a, err := tr.word(w)
		if err != nil {
			return Template{}, err
		}
		args = append(args, a...)
		want += len(a)
	}
	tr.t.Text = strings.Join(args, " ")
	tp, err := cmdtmpl.Parse(tr.t.Text)
	if err != nil || tp.NumArgs() != want {
		return Template{}, fmt.Errorf("command %q: its template %q does not hold its %d arguments (%v)", cmd, tr.t.Text, want, err)
	}
	return tr.t, nil
}

// word translates one argument: its text with each placeholder's
// template, quoted as cmdtmpl reads it. A {range N W} alone is two
// arguments.
func (tr *translator) word(w []piece) ([]string, error) {
	var b strings.Builder
	for _, p := range w {
		if p.placeholder == nil {
			if strings.Contains(p.lit, "__RAND") || strings.Contains(p.lit, "__DATA") {
				return nil, fmt.Errorf("argument text %q: tairbench reads __RAND and __DATA as its own placeholders and cannot send them as text", p.lit)
			}
			b.WriteString(p.lit)
			continue
		}
		a, err := tr.placeholder(p.placeholder)
		if err != nil {
			return nil, fmt.Errorf("{%s}: %w", strings.Join(p.placeholder, " "), err)
		}
		if len(a) == 2 {
			if len(w) != 1 {
				return nil, fmt.Errorf("{%s}: a range is two arguments, the start and the end, and stands alone", strings.Join(p.placeholder, " "))
			}
			return a, nil
		}
		b.WriteString(a[0])
	}
	return []string{cmdtmpl.Quote(b.String())}, nil
}

// rangeFor returns a range number for r: the same one for the same kind
// of independent draw, a new one when fresh.
func (tr *translator) rangeFor(kind string, r cmdtmpl.Range, fresh bool) (int, error) {
	if n, ok := tr.shared[kind]; ok && !fresh {
		return n, nil
	}
	if tr.used == cmdtmpl.MaxRanges {
		return 0, fmt.Errorf("more than %d kinds of placeholder in one command", cmdtmpl.MaxRanges)
	}
	tr.used++
	tr.t.Options.Ranges[tr.used] = r
	if !fresh {
		tr.shared[kind] = tr.used
	}
	return tr.used, nil
}

// placeholder translates one {…} into its arguments.
func (tr *translator) placeholder(f []string) ([]string, error) {
	if len(f) == 0 {
		return nil, fmt.Errorf("an empty placeholder")
	}
	nums := make([]uint64, 0, 2)
	want := map[string]int{"key": 2, "value": 1, "rand": 1, "range": 2}[f[0]]
	if want == 0 {
		return nil, fmt.Errorf("unknown placeholder %q (key, value, rand, range)", f[0])
	}
	if len(f) != want+1 {
		return nil, fmt.Errorf("wrong number of arguments for the %s placeholder", f[0])
	}
	first := 1
	if f[0] == "key" {
		first = 2 // {key DIST N}
	}
	for _, s := range f[first:] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		nums = append(nums, n)
	}
	switch f[0] {
	case "key":
		return tr.key(f[1], nums[0])
	case "value":
		if tr.value != 0 && tr.value != int(nums[0]) {
			return nil, fmt.Errorf("two {value} sizes in one command (%d and %d): tairbench's template has one value size", tr.value, nums[0])
		}
		if nums[0] == 0 || nums[0] > 512<<20 {
			return nil, fmt.Errorf("a value of %d bytes: want 1 byte to 512 MiB", nums[0])
		}
		tr.value, tr.t.Options.DataSize = int(nums[0]), int(nums[0])
		return []string{"__DATA__"}, nil
	case "rand":
		if nums[0] == 0 {
			return nil, fmt.Errorf("a range of 0 numbers")
		}
		n, err := tr.rangeFor("rand "+f[1], cmdtmpl.Range{Max: nums[0]}, false)
		return []string{rand(n, "")}, err
	default: // range N W
		if nums[0] == 0 {
			return nil, fmt.Errorf("a range of 0 numbers")
		}
		n, err := tr.rangeFor("rand "+f[1], cmdtmpl.Range{Max: nums[0]}, false)
		tr.ranges++
		tag := "{r" + strconv.Itoa(tr.ranges) + "}"
		return []string{rand(n, tag), rand(n, tag+"+"+f[2])}, err
	}
}

// key translates {key DIST N}: key_ and the number, ten digits at least.
func (tr *translator) key(dist string, n uint64) ([]string, error) {
	if n == 0 {
		return nil, fmt.Errorf("a range of 0 keys")
	}
	r := cmdtmpl.Range{Max: n, Pad: keyDigits}
	fresh := false
	switch dist {
	case "uniform":
	case "sequence":
		r.Dist, fresh = cmdtmpl.Seq, true
	case "zipfian": // ranks 1 … N, as resp-benchmark's
		r.Dist, r.Theta, r.Offset = cmdtmpl.Power, zipfExponent, 1
	default:
		return nil, fmt.Errorf("unknown distribution %q (uniform, sequence, zipfian)", dist)
	}
	num, err := tr.rangeFor("key "+dist+" "+strconv.FormatUint(n, 10), r, fresh)
	return []string{"key_" + rand(num, "")}, err
}

// rand is range n's placeholder, with a tag.
func rand(n int, tag string) string {
	if n == 1 {
		return "__RAND" + tag + "__"
	}
	return "__RAND" + strconv.Itoa(n) + tag + "__"
}
