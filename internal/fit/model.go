package fit

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/trace"
)

// Model is what a fit found in a trace.
type Model struct {
	Commands    int64   `yaml:"commands"`
	Connections int     `yaml:"connections"`
	SpanS       float64 `yaml:"span_s"`
	Traffic     Traffic `yaml:"traffic"`
	// Patterns are the key patterns, most used first.
	Patterns []PatternModel `yaml:"patterns"`
	// Unkeyed counts the commands that name no key, by name.
	Unkeyed []NameCount `yaml:"unkeyed,omitempty"`
	// KeysCapped says the fit followed MaxKeys keys one by one and
	// counted the rest only in their patterns.
	KeysCapped bool `yaml:"keys_capped,omitempty"`
}

// Traffic is the trace's rate and shape.
type Traffic struct {
	MeanPerS float64 `yaml:"mean_per_s"`
	PeakPerS float64 `yaml:"peak_per_s"`
	// Dispersion100ms is the variance over the mean of the commands per
	// 100 ms: 1 for Poisson arrivals, far above for bursts.
	Dispersion100ms float64 `yaml:"dispersion_100ms"`
	// Pipeline is the commands per burst of one connection (commands
	// within 50 µs of the one before).
	Pipeline float64 `yaml:"pipeline"`
	// MultiShare is the share of commands inside MULTI … EXEC.
	MultiShare float64 `yaml:"multi_share"`
}

// NameCount is a name and how often it came.
type NameCount = trace.Count

// PatternModel is one key pattern.
type PatternModel struct {
	Pattern  string  `yaml:"pattern"`
	Commands int64   `yaml:"commands"`
	Share    float64 `yaml:"share"`
	Keys     int64   `yaml:"keys"`
	// Mix is the commands on the pattern's keys, most first.
	Mix              []NameCount `yaml:"mix"`
	Popularity       Popularity  `yaml:"popularity"`
	ValueBytes       *Quantiles  `yaml:"value_bytes,omitempty"`
	TTLSeconds       *Quantiles  `yaml:"ttl_s,omitempty"`
	ReadAfterWriteMS *Quantiles  `yaml:"read_after_write_ms,omitempty"`
	ReuseMS          *Quantiles  `yaml:"reuse_ms,omitempty"`
}

// Popularity is how a pattern's commands spread over its keys.
type Popularity struct {
	// Dist is "zipf", "uniform", "sequential" or "hot set" (no Zipf law
	// fits: see Hot).
	Dist string `yaml:"dist"`
	// Zipf is the fitted exponent and KS its distance from the counts.
	Zipf float64 `yaml:"zipf_exponent"`
	KS   float64 `yaml:"ks"`
	// Dispersion is the keys' counts' variance over their mean (about 1
	// when every key is drawn alike).
	Dispersion float64 `yaml:"dispersion"`
	// Top1Pct is the share of the commands on the 1 % most used keys.
	Top1Pct float64 `yaml:"top_1pct_share"`
	// Hot are the most used keys with their shares.
	Hot []KeyShare `yaml:"hot,omitempty"`
}

// KeyShare is a key and its share of its pattern's commands.
type KeyShare struct {
	Key   string  `yaml:"key"`
	Share float64 `yaml:"share"`
}

// fitsZipf is the largest KS distance at which a Zipf law is said to fit.
const fitsZipf = 0.05

// Model is the fit of what the fitter took.
func (f *Fitter) Model() *Model {
	m := &Model{Commands: f.commands, Connections: len(f.conns), SpanS: f.span.Seconds(), KeysCapped: f.capped}
	m.Traffic = f.traffic()
	counts := map[*patternAcc][]keyCount{}
	for k, s := range f.keys {
		counts[s.p] = append(counts[s.p], keyCount{k, s.count})
	}
	for _, p := range f.order {
		m.Patterns = append(m.Patterns, p.model(counts[p], f.commands))
	}
	slices.SortStableFunc(m.Patterns, func(a, b PatternModel) int { return cmp.Compare(b.Commands, a.Commands) })
	m.Unkeyed = trace.Counts(f.unkeyed)
	return m
}

// traffic is the trace's rate and shape.
func (f *Fitter) traffic() Traffic {
	t := Traffic{}
	if f.commands == 0 {
		return t
	}
	t.MeanPerS = float64(f.commands) / max(f.span.Seconds(), 1e-3)
	for i := 0; i < len(f.windows); i += 10 {
		var sec int64
		for _, n := range f.windows[i:min(i+10, len(f.windows))] {
			sec += n
		}
		t.PeakPerS = max(t.PeakPerS, float64(sec))
	}
	whole := f.windows // the last window is cut short by the trace's end
	if len(whole) > 2 {
		whole = whole[:len(whole)-1]
	}
	t.Dispersion100ms = round(Dispersion(whole), 3)
	t.Pipeline = round(float64(f.commands)/float64(max(f.bursts, 1)), 3)
	t.MultiShare = round(float64(f.inMulti)/float64(f.commands), 4)
	t.MeanPerS = round(t.MeanPerS, 1)
	return t
}

// keyCount is a key and its count.
type keyCount struct {
	key string
	n   int64
}

// model is the pattern's model, its keys' counts given.
func (p *patternAcc) model(keys []keyCount, total int64) PatternModel {
	pm := PatternModel{Pattern: p.name, Commands: p.commands, Share: round(float64(p.commands)/float64(max(total, 1)), 4),
		Keys: p.keys, Mix: trace.Counts(p.mix), ValueBytes: p.sizes.quantiles(), TTLSeconds: p.ttls.quantiles(),
		ReadAfterWriteMS: p.raw.quantiles(), ReuseMS: p.reuse.quantiles()}
	pm.Popularity = p.popularity(keys)
	return pm
}

// popularity fits the keys' counts.
func (p *patternAcc) popularity(keys []keyCount) Popularity {
	slices.SortFunc(keys, func(a, b keyCount) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.key, b.key)) })
	counts := make([]int64, len(keys))
	var sum int64
	for i, k := range keys {
		counts[i] = k.n
		sum += k.n
	}
	pop := Popularity{Dist: "uniform"}
	if len(keys) < 2 || sum == 0 {
		return pop
	}
	z := FitZipf(counts)
	pop.Zipf, pop.KS, pop.Dispersion = round(z.Exponent, 3), round(z.KS, 4), round(Dispersion(counts), 3)
	var top int64
	for _, n := range counts[:max(len(counts)/100, 1)] {
		top += n
	}
	pop.Top1Pct = round(float64(top)/float64(sum), 4)
	switch {
	case p.pairs >= 100 && float64(p.seqHits) >= 0.9*float64(p.pairs):
		pop.Dist = "sequential"
	case pop.Dispersion <= 2:
		pop.Dist = "uniform"
	case z.KS <= fitsZipf:
		pop.Dist = "zipf"
	default:
		pop.Dist = "hot set"
		for _, k := range keys[:min(5, len(keys))] {
			pop.Hot = append(pop.Hot, KeyShare{Key: k.key, Share: round(float64(k.n)/float64(sum), 4)})
		}
	}
	return pop
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
