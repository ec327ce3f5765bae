package cmdtmpl

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/resp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"GET foo", []string{"GET", "foo"}, false},
		{"  SET  a   b  ", []string{"SET", "a", "b"}, false},
		{`SET k "hello world"`, []string{"SET", "k", "hello world"}, false},
		{`SET k 'a "b" c'`, []string{"SET", "k", `a "b" c`}, false},
		{`SET k "a\"b\\c\n\x41"`, []string{"SET", "k", "a\"b\\c\nA"}, false},
		{`SET k ""`, []string{"SET", "k", ""}, false},
		{`SET pre"fix mid"post`, []string{"SET", "prefix midpost"}, false},
		{`SET k "unterminated`, nil, true},
		{`SET k 'unterminated`, nil, true},
		{"", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Split(tc.in)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in  string
		msg string
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"GET __RAND1__", "unknown placeholder"},
		{"GET __RAND10__", "unknown placeholder"},
		{"GET __RAND{a__", "unterminated tag"},
		{"GET __RAND{}__", "empty tag"},
		{"GET __RAND{a}x", "must end with __"},
		{`GET "x`, "unterminated"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func opts(r1, r2 uint64) Options {
	var o Options
	o.Ranges[1] = Range{Max: r1}
	o.Ranges[2] = Range{Max: r2}
	o.DataSize = 8
	return o
}

func expandN(t *testing.T, tmpl string, o Options, n int) [][]string {
	t.Helper()
	tp, err := Parse(tmpl)
	require.NoError(t, err)
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g := p.NewGen(42)
	out := make([][]string, n)
	for i := range out {
		out[i] = g.Expand()
	}
	return out
}

func TestExpandPlaceholders(t *testing.T) {
	o := opts(10, 1000)
	for _, cmd := range expandN(t, "TR.SETBIT foo-__RAND__ __RAND2__ 1", o, 200) {
		require.Len(t, cmd, 4)
		assert.Equal(t, "TR.SETBIT", cmd[0])
		require.True(t, strings.HasPrefix(cmd[1], "foo-"))
		k, err := strconv.Atoi(strings.TrimPrefix(cmd[1], "foo-"))
		require.NoError(t, err)
		assert.True(t, k >= 0 && k < 10)
		v, err := strconv.Atoi(cmd[2])
		require.NoError(t, err)
		assert.True(t, v >= 0 && v < 1000)
		assert.Equal(t, "1", cmd[3])
	}
}

func TestIndependentAndSharedDraws(t *testing.T) {
	o := opts(1_000_000, 1)
	same, diff := 0, 0
	for _, cmd := range expandN(t, "X __RAND__ __RAND__ __RAND{a}__ a-__RAND{a}__-b", o, 500) {
		if cmd[1] == cmd[2] {
			same++
		}
		assert.Equal(t, "a-"+cmd[3]+"-b", cmd[4], "tagged values are reused")
		if cmd[3] != cmd[1] {
			diff++
		}
	}
	assert.Less(t, same, 5, "untagged occurrences are drawn independently")
	assert.Greater(t, diff, 490)
}

func TestRangesThreeToNine(t *testing.T) {
	var o Options
	for n := 1; n <= MaxRanges; n++ {
		o.Ranges[n] = Range{Max: uint64(n)}
	}
	for _, cmd := range expandN(t, "X __RAND__ __RAND2__ __RAND3__ __RAND9__", o, 50) {
		assert.Equal(t, "0", cmd[1])
		v2, _ := strconv.Atoi(cmd[2])
		v9, _ := strconv.Atoi(cmd[4])
		assert.Less(t, v2, 2)
		assert.Less(t, v9, 9)
	}
}

func TestMissingRange(t *testing.T) {
	tp, err := Parse("GET __RAND3__")
	require.NoError(t, err)
	_, err = Compile(tp, opts(10, 10))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "__RAND3__")
}

func TestSequentialIsSharedAndWraps(t *testing.T) {
	tp, err := Parse("GET k-__RAND__")
	require.NoError(t, err)
	var o Options
	o.Ranges[1] = Range{Max: 5, Dist: Seq}
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g1, g2 := p.NewGen(1), p.NewGen(2)
	var got []string
	for i := 0; i < 4; i++ {
		got = append(got, g1.Expand()[1], g2.Expand()[1])
	}
	assert.Equal(t, []string{"k-0", "k-1", "k-2", "k-3", "k-4", "k-0", "k-1", "k-2"}, got)
}

func TestZipfSkew(t *testing.T) {
	var o Options
	o.Ranges[1] = Range{Max: 1000, Dist: Zipf, Theta: 0.99}
	counts := map[string]int{}
	const n = 20000
	for _, cmd := range expandN(t, "GET __RAND__", o, n) {
		counts[cmd[1]]++
	}
	// With theta 0.99 over 1000 items, item 0 takes about 13 % of draws.
	assert.InDelta(t, 0.13, float64(counts["0"])/n, 0.03)
	assert.Greater(t, counts["0"], counts["1"])
	assert.Greater(t, counts["1"], counts["10"])
}

func TestDataVaries(t *testing.T) {
	o := opts(1, 1)
	o.DataSize = 64
	seen := map[string]bool{}
	for _, cmd := range expandN(t, "SET k __DATA__", o, 100) {
		require.Len(t, cmd[2], 64)
		seen[cmd[2]] = true
	}
	assert.Greater(t, len(seen), 95)
}

func TestSameSeedSameCommands(t *testing.T) {
	o := opts(1<<40, 1<<20)
	a := expandN(t, "X __RAND__ __RAND2__ __DATA__", o, 20)
	b := expandN(t, "X __RAND__ __RAND2__ __DATA__", o, 20)
	assert.Equal(t, a, b)
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		in   string
		want Range
		err  bool
	}{
		{"100", Range{Max: 100}, false},
		{"100:uniform", Range{Max: 100}, false},
		{"100:zipf", Range{Max: 100, Dist: Zipf, Theta: 0.99}, false},
		{"100:zipf:0.5", Range{Max: 100, Dist: Zipf, Theta: 0.5}, false},
		{"100:seq", Range{Max: 100, Dist: Seq}, false},
		{"0", Range{}, true},
		{"-5", Range{}, true},
		{"abc", Range{}, true},
		{"10:gauss", Range{}, true},
		{"10:zipf:2", Range{}, true},
		{"10:seq:1", Range{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRange(tc.in)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			back, err := ParseRange(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, back)
		})
	}
}

// readRESPArray decodes one RESP array of bulk strings (test helper).
func readRESPArray(t *testing.T, r *bufio.Reader) []string {
	t.Helper()
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, byte('*'), line[0])
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	require.NoError(t, err)
	out := make([]string, n)
	for i := range out {
		line, err = r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, byte('$'), line[0])
		l, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		require.NoError(t, err)
		buf := make([]byte, l+2)
		_, err = r.Read(buf)
		require.NoError(t, err)
		require.Equal(t, "\r\n", string(buf[l:]))
		out[i] = string(buf[:l])
	}
	return out
}

func TestAppendRESPMatchesArgs(t *testing.T) {
	tp, err := Parse(`HSET "h __RAND__" f-__RAND2{x}__ __DATA__ v-__RAND2{x}__ ""`)
	require.NoError(t, err)
	o := opts(100, 100)
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g1, g2 := p.NewGen(7), p.NewGen(7)
	var buf []byte
	for i := 0; i < 50; i++ {
		buf = g1.AppendRESP(buf)
	}
	r := bufio.NewReader(bytes.NewReader(buf))
	for i := 0; i < 50; i++ {
		assert.Equal(t, g2.Expand(), readRESPArray(t, r))
	}
}

// TestDrawMatchesAppendRESP checks the two-step expansion a cluster client
// uses: Arg reads each drawn argument, and AppendDrawn encodes the same
// command AppendRESP would (same seed, same commands), without allocating.
func TestDrawMatchesAppendRESP(t *testing.T) {
	tp, err := Parse(`HSET "h __RAND__" f-__RAND2{x}__ __DATA__ v-__RAND2{x}__ ""`)
	require.NoError(t, err)
	p, err := Compile(tp, opts(100, 100))
	require.NoError(t, err)
	g1, g2 := p.NewGen(7), p.NewGen(7)
	var want, got []byte
	for i := 0; i < 50; i++ {
		want = g1.AppendRESP(want[:0])
		g2.Draw()
		args := readRESPArray(t, bufio.NewReader(bytes.NewReader(want)))
		for j, a := range args {
			assert.Equal(t, a, string(g2.Arg(j)), "argument %d", j)
		}
		got = g2.AppendDrawn(got[:0])
		assert.Equal(t, string(want), string(got))
	}
	allocs := testing.AllocsPerRun(1000, func() {
		g2.Draw()
		_ = g2.Arg(1)
		got = g2.AppendDrawn(got[:0])
	})
	assert.Zero(t, allocs)
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"TR.SETBIT foo-__RAND__ __RAND2__ 1",
		`SET "a b" __DATA__`,
		"X __RAND{t}__ __RAND3{t}__ __RAND9__",
		"GET __RAND10__", `'x`, "__RAND{", "__RAND2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tp, err := Parse(s)
		if err != nil {
			return
		}
		var o Options
		for n := 1; n <= MaxRanges; n++ {
			o.Ranges[n] = Range{Max: 1000}
		}
		o.DataSize = 4
		p, err := Compile(tp, o)
		if err != nil {
			t.Fatalf("compile after parse: %v", err)
		}
		g := p.NewGen(1)
		buf := g.AppendRESP(nil)
		got := readRESPArray(t, bufio.NewReader(bytes.NewReader(buf)))
		if len(got) != tp.NumArgs() {
			t.Fatalf("got %d args, want %d", len(got), tp.NumArgs())
		}
		g.Draw()
		for i := range got {
			_ = g.Arg(i)
		}
		if buf2 := g.AppendDrawn(nil); len(readRESPArray(t, bufio.NewReader(bytes.NewReader(buf2)))) != tp.NumArgs() {
			t.Fatalf("AppendDrawn: wrong argument count")
		}
	})
}

// BenchmarkAppendRESP encodes a command in one step (AppendRESP, the
// standalone path) and in two (Draw, then AppendDrawn: the cluster path,
// which reads the key in between).
func BenchmarkAppendRESP(b *testing.B) {
	for _, tmpl := range []string{
		"TR.GETBIT foo-__RAND__ __RAND2__",
		"SET key:__RAND__ __DATA__",
		"TR.SETBITS foo " + strings.Repeat("__RAND__ ", 100),
	} {
		for _, mode := range []string{"", "/draw"} {
			b.Run(strings.Fields(tmpl)[0]+mode, func(b *testing.B) {
				tp, err := Parse(tmpl)
				require.NoError(b, err)
				o := opts(10_000_000, 100_000)
				o.DataSize = 64
				p, err := Compile(tp, o)
				require.NoError(b, err)
				g := p.NewGen(1)
				buf := make([]byte, 0, 4096)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if mode == "" {
						buf = g.AppendRESP(buf[:0])
						continue
					}
					g.Draw()
					buf = g.AppendDrawn(buf[:0])
				}
			})
		}
	}
}

func TestAppendRESPDoesNotAllocate(t *testing.T) {
	tp, err := Parse("TR.SETBIT foo-__RAND__ __RAND2{a}__ __DATA__ __RAND2{a}__")
	require.NoError(t, err)
	p, err := Compile(tp, opts(100, 100))
	require.NoError(t, err)
	g := p.NewGen(1)
	buf := g.AppendRESP(nil)
	allocs := testing.AllocsPerRun(1000, func() { buf = g.AppendRESP(buf[:0]) })
	assert.Zero(t, allocs)
}

func TestPaddedRangeAndInline(t *testing.T) {
	tp, err := Parse("SET key:__RAND__ __RAND2__")
	require.NoError(t, err)
	var o Options
	o.Ranges[1] = Range{Max: 1000, Pad: 12}
	o.Ranges[2] = Range{Max: 10}
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g := p.NewGen(1)
	for range 50 {
		args := g.Expand()
		assert.Regexp(t, `^key:\d{12}$`, args[1], "12 digits, zero-padded, as redis-benchmark's __rand_int__")
		assert.Regexp(t, `^\d$`, args[2], "an unpadded range is unchanged")
	}
	line := string(g.AppendInline(nil))
	assert.Regexp(t, `^SET key:\d{12} \d\r\n$`, line)
}

func TestGaussPartAndDataRange(t *testing.T) {
	tp, err := Parse("SET k__RAND__ __RAND2__ __DATA__")
	require.NoError(t, err)
	var o Options
	o.Ranges[1] = Range{Max: 1000, Dist: Gauss}
	o.Ranges[2] = Range{Max: 100, Dist: Part, Offset: 500}
	o.DataSize, o.DataMax = 4, 8
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g := p.NewGen(3)
	var sum, sumSq float64
	const n = 20000
	for range n {
		v, err := strconv.ParseFloat(g.Expand()[1][1:], 64)
		require.NoError(t, err)
		require.True(t, v >= 0 && v < 1000)
		sum += v
		sumSq += v * v
	}
	mean := sum / n
	assert.InDelta(t, 499.5, mean, 5, "centred")
	assert.InDelta(t, 1000.0/6, math.Sqrt(sumSq/n-mean*mean), 8, "a sixth of the range")

	// Part: generator 1 of 4 walks 525…549 in order, then again.
	g = p.NewGenPart(3, 1, 4)
	var seen []string
	lens := map[int]bool{}
	for range 26 {
		args := g.Expand()
		seen = append(seen, args[2])
		lens[len(args[3])] = true
	}
	assert.Equal(t, "525", seen[0])
	assert.Equal(t, "549", seen[24])
	assert.Equal(t, "525", seen[25], "the slice wraps")
	assert.Equal(t, map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true}, lens, "sizes 4 to 8")

	o.DataSeq = true
	p, err = Compile(tp, o)
	require.NoError(t, err)
	g = p.NewGen(1)
	var sizes []int
	for range 6 {
		sizes = append(sizes, len(g.Expand()[3]))
	}
	assert.Equal(t, []int{4, 5, 6, 7, 8, 4}, sizes)
}

// TestStreamsAreStable pins the commands a seed gives, byte for byte, for
// templates that use every kind of placeholder: a run's recorded seed
// replays the same commands under a later build. The digests were taken
// at commit 8cfab82; a change that moves them changes what every recorded
// seed means, and must say so.
func TestStreamsAreStable(t *testing.T) {
	zipf := func(o *Options) { o.Ranges[1] = Range{Max: 1_000_000, Dist: Zipf, Theta: 0.99} }
	tests := []struct {
		tmpl string
		set  func(o *Options)
		want string
	}{
		{"GET key:__RAND__", nil, "6a1973a2f1d0d374"},
		{"SET key:__RAND__ __DATA__", nil, "a60cdf92073fde31"},
		{"TR.SETBITS foo " + strings.Repeat("__RAND__ ", 20), nil, "9bbf99d1f50930f8"},
		{`HSET "h __RAND__" f-__RAND2{x}__ __DATA__ v-__RAND2{x}__ ""`, nil, "b6eb85620ef5e919"},
		{"SET key:__RAND__ __RAND2__", func(o *Options) { o.Ranges[1].Pad = 12; o.Ranges[2].Offset = 7 }, "04afa28a5bde657b"},
		{"SET k__RAND__ __RAND2__ x__DATA__y", func(o *Options) {
			o.Ranges[1] = Range{Max: 1000, Dist: Gauss}
			o.Ranges[2] = Range{Max: 64}
			o.DataSize, o.DataMax = 4, 80
		}, "3dad243e027b85b3"},
		{"GET key:__RAND__", zipf, "f0a9209f18a9bb5e"},
	}
	for _, tc := range tests {
		t.Run(tc.tmpl, func(t *testing.T) {
			tp, err := Parse(tc.tmpl)
			require.NoError(t, err)
			o := opts(10_000_000, 100_000)
			o.DataSize = 64
			if tc.set != nil {
				tc.set(&o)
			}
			p, err := Compile(tp, o)
			require.NoError(t, err)
			g := p.NewGen(42)
			var buf []byte
			for range 2000 {
				buf = g.AppendRESP(buf)
			}
			sum := sha256.Sum256(buf)
			assert.Equal(t, tc.want, hex.EncodeToString(sum[:8]))
		})
	}
}

// TestDigits checks the digit count at every count's edges.
func TestDigits(t *testing.T) {
	vals := []uint64{0, 1, 9, math.MaxUint64}
	for p := uint64(10); ; p *= 10 {
		vals = append(vals, p-1, p, p+1)
		if p > math.MaxUint64/10 {
			break
		}
	}
	for _, v := range vals {
		assert.Equal(t, len(strconv.FormatUint(v, 10)), digits(v), "%d", v)
	}
}

// TestWideRangesEncode checks the length fields AppendRESP writes where
// values' lengths vary: a range whose top wraps past 2^64, a padded one,
// and __DATA__ values whose sizes cross from one digit to two, alone and
// inside an argument.
func TestWideRangesEncode(t *testing.T) {
	wide := opts(math.MaxUint64, 3)
	wide.Ranges[1].Offset = math.MaxUint64 - 5
	wide.Ranges[2].Pad = 30
	sized := opts(10, 10)
	sized.DataSize, sized.DataMax = 4, 12
	for _, tc := range []struct {
		tmpl string
		o    Options
	}{
		{"SET k__RAND__ __RAND2__", wide},
		{"SET k __DATA__", sized},
		{"SET k x__DATA__y", sized},
	} {
		t.Run(tc.tmpl, func(t *testing.T) {
			tp, err := Parse(tc.tmpl)
			require.NoError(t, err)
			p, err := Compile(tp, tc.o)
			require.NoError(t, err)
			g1, g2 := p.NewGen(1), p.NewGen(1)
			var got, want []byte // want: resp's encoder, exact (no zero-padded lengths)
			for range 50 {
				got = g1.AppendRESP(got)
				want = resp.AppendCommand(want, g2.Expand()...)
			}
			assert.Equal(t, string(want), string(got))
		})
	}
}

// TestTaggedAddend: __RAND{t}+W__ is the tag's value plus W, at most the
// range's top, and shares the draw with the plain tag.
func TestTaggedAddend(t *testing.T) {
	tp, err := Parse("ZRANGEBYSCORE k __RAND2{r}__ __RAND2{r}+10__")
	require.NoError(t, err)
	var o Options
	o.Ranges[2] = Range{Max: 100}
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g := p.NewGen(3)
	sawClamp := false
	for range 2000 {
		args := g.Expand()
		lo, err1 := strconv.ParseUint(args[2], 10, 64)
		hi, err2 := strconv.ParseUint(args[3], 10, 64)
		require.NoError(t, err1)
		require.NoError(t, err2)
		require.Equal(t, min(lo+10, 99), hi, "%v", args)
		sawClamp = sawClamp || hi == 99 && lo > 89
	}
	assert.True(t, sawClamp, "values near the top end at the top")
	buf := make([]byte, 0, 128)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { buf = g.AppendRESP(buf[:0]) }))
	for _, bad := range []string{"X __RAND{r}+__", "X __RAND{r}+99999999999999999999__"} {
		_, err := Parse(bad)
		assert.ErrorContains(t, err, "+W after a tag", bad)
	}
}

// TestPowerLaw: a Power range draws k ∝ (k+1)^-s: with s 1.03 over 1000
// values, 0 is drawn about 1/Σ(k^-1.03) ≈ 14 % of the time, and 1 about
// 2^-1.03 times as often; generators do not allocate per command.
func TestPowerLaw(t *testing.T) {
	tp, err := Parse("GET key___RAND__")
	require.NoError(t, err)
	var o Options
	o.Ranges[1] = Range{Max: 1000, Dist: Power, Theta: 1.03, Pad: 10, Offset: 1}
	p, err := Compile(tp, o)
	require.NoError(t, err)
	g := p.NewGen(7)
	counts := map[string]int{}
	const n = 200_000
	for range n {
		counts[g.Expand()[1]]++
	}
	zeta := 0.0
	for k := 1; k <= 1000; k++ {
		zeta += math.Pow(float64(k), -1.03)
	}
	assert.InDelta(t, 1/zeta, float64(counts["key_0000000001"])/n, 0.01, "the first key, offset 1 as resp-benchmark's")
	assert.InDelta(t, math.Pow(2, -1.03), float64(counts["key_0000000002"])/float64(counts["key_0000000001"]), 0.05)
	assert.Zero(t, counts["key_0000000000"], "no key 0")
	assert.LessOrEqual(t, len(counts), 1000)
	buf := make([]byte, 0, 64)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { buf = g.AppendRESP(buf[:0]) }))
	r, err := ParseRange("1000:power:1.5")
	require.NoError(t, err)
	assert.Equal(t, Range{Max: 1000, Dist: Power, Theta: 1.5}, r)
	assert.Equal(t, "1000:power:1.5", r.String())
	_, err = ParseRange("1000:power:0.9")
	assert.ErrorContains(t, err, "above 1")
	o.Ranges[1].Theta = 1
	_, err = Compile(tp, o)
	assert.ErrorContains(t, err, "above 1")
}
