package fit

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/commands"
)

// maxLiterals is how many distinct values of an argument a fit keeps
// before it takes the argument for a variable one.
const maxLiterals = 32

// patternAcc is what a fit gathers of one key pattern.
type patternAcc struct {
	name     string
	commands int64
	keys     int64
	mix      map[string]int64
	ops      map[string]*opAcc
	opOrder  []*opAcc
	sizes    *reservoir
	ttls     *reservoir
	raw      *reservoir // read after write, ms
	reuse    *reservoir // ms between uses of a key
	lastID   int64
	minID    int64
	maxID    int64
	pairs    int64
	seqHits  int64
}

func newPatternAcc(name string, seed uint64) *patternAcc {
	return &patternAcc{name: name, mix: map[string]int64{}, ops: map[string]*opAcc{}, sizes: newReservoir(seed),
		ttls: newReservoir(seed + 1<<20), raw: newReservoir(seed + 2<<20), reuse: newReservoir(seed + 3<<20),
		lastID: -1, minID: -1}
}

// opAcc is one command of a pattern, by its argument count: what each
// argument held.
type opAcc struct {
	name  string
	n     int
	count int64
	key   int // the pattern's key position
	args  []argAcc
}

// argAcc is what one argument position held.
type argAcc struct {
	vals    map[string]int64
	many    bool
	numeric bool
	lo, hi  int64
	value   bool // a value (its size is drawn, not its content)
	sizes   *reservoir
	ttl     bool // the TTL after EX, or SETEX's
}

// command takes one command whose first key (at position key) is of
// the pattern, its id (−1: none).
func (p *patternAcc) command(name string, args [][]byte, key int, id int64) {
	p.commands++
	p.mix[name]++
	if id >= 0 {
		if p.lastID >= 0 {
			p.pairs++
			if id == p.lastID+1 {
				p.seqHits++
			}
		}
		p.lastID = id
		if p.minID < 0 || id < p.minID {
			p.minID = id
		}
		p.maxID = max(p.maxID, id)
	}
	op := p.op(name, len(args), key)
	op.count++
	values := commands.ValuePositions(name, len(args))
	ttlAt := ttlPosition(name, args)
	for i := 1; i < len(args); i++ {
		if i == key {
			continue
		}
		a := &op.args[i]
		if slices.Contains(values, i) {
			a.value = true
			p.sizes.add(float64(len(args[i])))
			a.sizes.add(float64(len(args[i])))
			continue
		}
		if i == ttlAt {
			a.ttl = true
			if ttl, err := strconv.ParseFloat(string(args[i]), 64); err == nil {
				if strings.HasPrefix(name, "P") || strings.EqualFold(string(args[i-1]), "PX") {
					ttl /= 1000
				}
				p.ttls.add(ttl)
			}
		}
		a.take(args[i])
	}
}

// op is the accumulator of one command of n arguments.
func (p *patternAcc) op(name string, n, key int) *opAcc {
	k := name + "/" + strconv.Itoa(n)
	o := p.ops[k]
	if o == nil {
		o = &opAcc{name: name, n: n, key: key, args: make([]argAcc, n)}
		for i := range o.args {
			o.args[i] = argAcc{vals: map[string]int64{}, numeric: true, sizes: newReservoir(uint64(len(p.ops)*31 + i))}
		}
		p.ops[k] = o
		p.opOrder = append(p.opOrder, o)
	}
	return o
}

// take notes one value of an argument.
func (a *argAcc) take(v []byte) {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		if len(a.vals) == 0 && !a.many || n < a.lo {
			a.lo = n
		}
		if len(a.vals) == 0 && !a.many || n > a.hi {
			a.hi = n
		}
	} else {
		a.numeric = false
	}
	a.sizes.add(float64(len(v)))
	if a.many {
		return
	}
	if _, ok := a.vals[string(v)]; ok || len(a.vals) < maxLiterals {
		a.vals[string(v)]++
		return
	}
	a.many = true
}

// ttlPosition is where a command's TTL is (0: none): SETEX's and
// EXPIRE's, or after SET's EX or PX.
func ttlPosition(name string, args [][]byte) int {
	switch name {
	case "SETEX", "PSETEX", "EXPIRE", "PEXPIRE":
		return 2
	case "SET", "GETEX":
		from := 2 // GETEX KEY EX n
		if name == "SET" {
			from = 3 // SET KEY VALUE EX n
		}
		for i := from; i+1 < len(args); i++ {
			if w := strings.ToUpper(string(args[i])); w == "EX" || w == "PX" {
				return i + 1
			}
		}
	}
	return 0
}
