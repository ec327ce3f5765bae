package bitmap

import (
	"fmt"
	"math"
	mrand "math/rand"
	"math/rand/v2"

	rb "github.com/RoaringBitmap/roaring/v2"
)

// Generator shapes (--shape): how IDs spread over the universe.
const (
	ShapeUniform   = "uniform"   // every ID equally likely
	ShapeClustered = "clustered" // dense blocks: a few blocks, half of each block set
	ShapeZipf      = "zipf"      // blocks drawn by a Zipf law (s 1.2): a few hot blocks, a long tail
	ShapeSequence  = "sequence"  // ascending IDs with random gaps (auto-increment IDs, some deleted)
	ShapeRuns      = "runs"      // runs of consecutive IDs at random places
)

// Shapes lists the shapes.
var Shapes = []string{ShapeUniform, ShapeClustered, ShapeZipf, ShapeSequence, ShapeRuns}

// GenSpec describes one generated set.
type GenSpec struct {
	Shape       string
	Cardinality uint64
	Universe    uint64
	// Block is the block size of clustered and zipf (default 65,536);
	// RunLength the length of each run (default 1,000).
	Block, RunLength uint64
	Seed             uint64
}

// Validate refuses what cannot be generated.
func (g GenSpec) Validate() error {
	known := false
	for _, s := range Shapes {
		known = known || s == g.Shape
	}
	switch {
	case !known:
		return fmt.Errorf("unknown shape %q (uniform, clustered, zipf, sequence, runs)", g.Shape)
	case g.Universe == 0 || g.Universe > 1<<32:
		return fmt.Errorf("universe %d: want 1 … 4294967296 (2^32)", g.Universe)
	case g.Cardinality == 0:
		return fmt.Errorf("cardinality 0: want at least 1")
	case g.Cardinality > g.Universe:
		return fmt.Errorf("cardinality %d is above the universe %d", g.Cardinality, g.Universe)
	}
	return nil
}

// Describe is the shape in words, for tables.
func (g GenSpec) Describe() string {
	g = g.defaults()
	switch g.Shape {
	case ShapeClustered:
		return fmt.Sprintf("clustered: blocks of %d IDs, half of each block set", g.Block)
	case ShapeZipf:
		return fmt.Sprintf("zipf over blocks of %d IDs (s 1.2)", g.Block)
	case ShapeSequence:
		return "ascending with random gaps"
	case ShapeRuns:
		return fmt.Sprintf("runs of %d consecutive IDs", g.RunLength)
	}
	return "uniform"
}

func (g GenSpec) defaults() GenSpec {
	if g.Block == 0 {
		g.Block = 1 << 16
	}
	g.Block = min(g.Block, g.Universe)
	if g.RunLength == 0 {
		g.RunLength = 1000
	}
	g.RunLength = min(g.RunLength, g.Universe)
	return g
}

// Generate makes the set; it has exactly Cardinality IDs below Universe.
func Generate(g GenSpec) (*rb.Bitmap, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	g = g.defaults()
	rng := rand.New(rand.NewPCG(g.Seed, 0x6269746d6170))
	bm := rb.New()
	switch g.Shape {
	case ShapeUniform:
		uniform(bm, rng, 0, g.Universe, g.Cardinality)
	case ShapeClustered:
		clustered(bm, rng, g)
	case ShapeZipf:
		zipf(bm, rng, g)
	case ShapeSequence:
		sequence(bm, rng, g)
	case ShapeRuns:
		runs(bm, rng, g)
	}
	return bm, nil
}

// uniform adds n distinct random IDs of [lo, hi) to bm (which holds none
// there yet); past half of the span it removes from a full span instead.
func uniform(bm *rb.Bitmap, rng *rand.Rand, lo, hi, n uint64) {
	span := hi - lo
	if n*2 > span {
		full := rb.New()
		full.AddRange(lo, hi)
		for removed := uint64(0); removed < span-n; {
			if full.CheckedRemove(uint32(lo + rng.Uint64N(span))) {
				removed++
			}
		}
		bm.Or(full)
		return
	}
	for added := uint64(0); added < n; {
		if bm.CheckedAdd(uint32(lo + rng.Uint64N(span))) {
			added++
		}
	}
}

// clustered fills random blocks to half, block after block.
func clustered(bm *rb.Bitmap, rng *rand.Rand, g GenSpec) {
	blocks := g.Universe / g.Block
	perBlock := max(g.Block/2, 1)
	used := map[uint64]bool{}
	for left := g.Cardinality; left > 0; {
		b := rng.Uint64N(max(blocks, 1))
		if used[b] && uint64(len(used)) < blocks {
			continue
		}
		used[b] = true
		lo := b * g.Block
		hi := min(lo+g.Block, g.Universe)
		free := (hi - lo) - countIn(bm, lo, hi)
		take := min(perBlock, left, free)
		if uint64(len(used)) >= blocks {
			take = min(left, free) // every block used: fill them up
		}
		uniformInto(bm, rng, lo, hi, take)
		left -= take
	}
}

// uniformInto adds n IDs of [lo, hi) not yet in bm.
func uniformInto(bm *rb.Bitmap, rng *rand.Rand, lo, hi, n uint64) {
	part := rb.New()
	part.AddRange(lo, hi)
	part.AndNot(bm)
	free := part.GetCardinality()
	if n >= free {
		bm.Or(part)
		return
	}
	add := rb.New()
	uniform(add, rng, 0, free, n)
	it := add.Iterator()
	for it.HasNext() {
		v, _ := part.Select(it.Next())
		bm.Add(v)
	}
}

// zipf draws each ID's block by a Zipf law over a random order of the
// blocks, then its place in the block uniformly.
func zipf(bm *rb.Bitmap, rng *rand.Rand, g GenSpec) {
	blocks := max(g.Universe/g.Block, 1)
	z := mrand.NewZipf(mrand.New(mrand.NewSource(int64(g.Seed))), 1.2, 1, blocks-1)
	perm := rng.Perm(int(min(blocks, 1<<16)))
	for added, tries := uint64(0), uint64(0); added < g.Cardinality; tries++ {
		if tries > 20*g.Cardinality+1000 {
			// the hot blocks are full: the rest goes anywhere
			uniformInto(bm, rng, 0, g.Universe, g.Cardinality-added)
			return
		}
		b := z.Uint64()
		if int(b) < len(perm) {
			b = uint64(perm[b])
		}
		v := b*g.Block + rng.Uint64N(g.Block)
		if v < g.Universe && bm.CheckedAdd(uint32(v)) {
			added++
		}
	}
}

// sequence walks up from a random start by gaps of mean universe/n.
func sequence(bm *rb.Bitmap, rng *rand.Rand, g GenSpec) {
	mean := float64(g.Universe) / float64(g.Cardinality)
	v := uint64(0)
	for added := uint64(0); added < g.Cardinality && v < g.Universe; added++ {
		bm.Add(uint32(v))
		step := uint64(math.Max(1, math.Round(rng.Float64()*2*mean)))
		v += step
	}
	if left := g.Cardinality - bm.GetCardinality(); left > 0 {
		uniformInto(bm, rng, 0, g.Universe, left) // gaps ran past the end
	}
}

// runs places runs of RunLength at random starts until the cardinality.
func runs(bm *rb.Bitmap, rng *rand.Rand, g GenSpec) {
	for bm.GetCardinality() < g.Cardinality {
		left := g.Cardinality - bm.GetCardinality()
		n := min(g.RunLength, left)
		s := rng.Uint64N(g.Universe - n + 1)
		if bm.IntersectsWithInterval(s, s+n) {
			if bm.GetCardinality()*2 > g.Universe {
				uniformInto(bm, rng, 0, g.Universe, left)
				return
			}
			continue
		}
		bm.AddRange(s, s+n)
	}
}

// countIn is how many IDs of bm lie in [lo, hi).
func countIn(bm *rb.Bitmap, lo, hi uint64) uint64 {
	n := bm.Rank(uint32(hi - 1))
	if lo > 0 {
		n -= bm.Rank(uint32(lo - 1))
	}
	return n
}
