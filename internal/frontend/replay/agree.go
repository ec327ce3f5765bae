package replay

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/commands"
	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/replay"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/result"
)

// The agreement check's sample: at most agreeKeys keys, agreeCommands
// commands; weighKeys keys are weighed (MEMORY USAGE) on each side.
const (
	agreeKeys     = 100
	agreeCommands = 20_000
	weighKeys     = 10_000
	shownDiffs    = 5
)

// The agreement check's keys on each side.
const (
	verifyRedis   = "tairbench:verify:redis:"
	verifyRoaring = "tairbench:verify:tairroaring:"
)

// bitmapKeys reads the trace for the keys its bitmap commands name.
func bitmapKeys(path string) (map[string]bool, error) {
	r, done, err := openTrace(path)
	if err != nil {
		return nil, err
	}
	defer done()
	keys, err := replay.BitmapKeys(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return keys, nil
}

// sample is n of the keys, chosen by their hash: the same every run.
func sample(keys map[string]bool, n int) []string {
	all := make([]string, 0, len(keys))
	for k := range keys {
		all = append(all, k)
	}
	hash := func(s string) uint64 {
		h := fnv.New64a()
		h.Write([]byte(s))
		return h.Sum64()
	}
	slices.SortFunc(all, func(a, b string) int {
		ha, hb := hash(a), hash(b)
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return strings.Compare(a, b)
	})
	return all[:min(n, len(all))]
}

// pairs are the commands both sides are asked, in order, and which of
// their answers are compared.
type pairs struct {
	redis, roaring [][]string
	compared       []bool
	keys           map[string]bool
}

// add appends one command on each side, its keys prefixed; compare says
// whether the answers must agree.
func (p *pairs) add(orig, tr [][]byte, compare bool) {
	p.redis = append(p.redis, prefixed(orig, verifyRedis))
	p.roaring = append(p.roaring, prefixed(tr, verifyRoaring))
	p.compared = append(p.compared, compare)
}

// prefixed is a command as text, its keys prefixed.
func prefixed(args [][]byte, prefix string) []string {
	keys := commands.KeyPositions(strings.ToUpper(string(args[0])), len(args))
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
		if slices.Contains(keys, i) {
			out[i] = prefix + out[i]
		}
	}
	return out
}

// agree sends the commands on a sample of the bitmap keys (those whose
// keys are all sampled), in the trace's order, to both structures, and
// compares each answer: a BITOP's by the cardinality of its result (Redis
// answers the result's length in bytes, TairRoaring its cardinality).
func agree(ctx context.Context, path string, keys map[string]bool, red, tr endpoint.Target) (result.Agreement, error) {
	in := map[string]bool{}
	for _, k := range sample(keys, agreeKeys) {
		in[k] = true
	}
	r, done, err := openTrace(path)
	if err != nil {
		return result.Agreement{}, err
	}
	defer done()
	orig, mapper := replay.NewTranslator(r, keys, false), replay.NewTranslator(nil, keys, true)
	p := &pairs{keys: map[string]bool{}}
	var rec trace.Record
	for len(p.redis) < agreeCommands {
		if err := orig.Read(&rec); err == io.EOF {
			break
		} else if err != nil {
			return result.Agreement{}, err
		}
		name := strings.ToUpper(string(rec.Args[0]))
		ks := commands.KeyPositions(name, len(rec.Args))
		if len(ks) == 0 || !all(rec.Args, ks, in) {
			continue
		}
		for _, k := range ks {
			p.keys[string(rec.Args[k])] = true
		}
		mapped, _ := mapper.Translate(rec.Args)
		p.add(rec.Args, mapped, name != "BITOP")
		if name == "BITOP" {
			dest := rec.Args[2]
			p.add([][]byte{[]byte("BITCOUNT"), dest}, [][]byte{[]byte("TR.BITCOUNT"), dest}, true)
		}
	}
	return p.ask(ctx, red, tr)
}

// all says whether every key of a command is in the sample.
func all(args [][]byte, ks []int, in map[string]bool) bool {
	for _, k := range ks {
		if !in[string(args[k])] {
			return false
		}
	}
	return true
}

// ask sends the pairs, compares the answers and removes the keys.
func (p *pairs) ask(ctx context.Context, red, tr endpoint.Target) (result.Agreement, error) {
	a := result.Agreement{Keys: int64(len(p.keys))}
	clean := func() error {
		var dr, dt [][]string
		for k := range p.keys {
			dr, dt = append(dr, []string{"DEL", verifyRedis + k}), append(dt, []string{"DEL", verifyRoaring + k})
		}
		if _, err := driver.Exchange(ctx, red, dr); err != nil {
			return err
		}
		_, err := driver.Exchange(ctx, tr, dt)
		return err
	}
	if err := clean(); err != nil {
		return a, err
	}
	ra, err := driver.Exchange(ctx, red, p.redis)
	if err != nil {
		return a, err
	}
	ta, err := driver.Exchange(ctx, tr, p.roaring)
	if err != nil {
		return a, err
	}
	for i, ok := range p.compared {
		if !ok {
			continue
		}
		a.Commands++
		if ra[i] == ta[i] {
			a.Agreed++
		} else if len(a.Disagreements) < shownDiffs {
			a.Disagreements = append(a.Disagreements, result.Disagreement{Original: strings.Join(p.redis[i], " "),
				Translated: strings.Join(p.roaring[i], " "), OriginalReply: ra[i].Text, TranslatedReply: ta[i].Text})
		}
	}
	return a, clean()
}

// weigh sums MEMORY USAGE over a sample of the bitmap keys on each side,
// as each side's replay left them, scaled to all the keys.
func weigh(ctx context.Context, keys map[string]bool, sides []side) (result.TranslationMemory, error) {
	ks := sample(keys, weighKeys)
	m := result.TranslationMemory{Keys: int64(len(keys)), Sampled: int64(len(ks))}
	for _, sd := range sides {
		names := make([]string, len(ks))
		for i, k := range ks {
			names[i] = sd.prefix + k
		}
		sizes, err := driver.MemoryUsage(ctx, sd.tg, names)
		if err != nil {
			return m, err
		}
		var sum int64
		for _, s := range sizes {
			sum += s
		}
		scaled := sum * m.Keys / max(m.Sampled, 1)
		if sd.toRoaring {
			m.TranslatedBytes = scaled
		} else {
			m.OriginalBytes = scaled
		}
	}
	return m, nil
}
