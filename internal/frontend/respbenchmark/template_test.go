package respbenchmark

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// expand compiles a translated command and draws n commands.
func expand(t *testing.T, cmd string, n int) [][]string {
	t.Helper()
	tr, err := Translate(cmd)
	require.NoError(t, err)
	tp, err := cmdtmpl.Parse(tr.Text)
	require.NoError(t, err, tr.Text)
	p, err := cmdtmpl.Compile(tp, tr.Options)
	require.NoError(t, err)
	g := p.NewGen(1)
	out := make([][]string, n)
	for i := range out {
		out[i] = g.Expand()
	}
	return out
}

func TestTranslate(t *testing.T) {
	cases := []struct {
		cmd, text string
	}{
		{"SET {key uniform 100000} {value 64}", "SET key___RAND__ __DATA__"},
		{"HSET {key uniform 1000} {key uniform 100} {value 64}", "HSET key___RAND__ key___RAND2__ __DATA__"},
		{"SADD {key sequence 1000} {key sequence 1000}", "SADD key___RAND__ key___RAND2__"},
		{"ZRANGEBYSCORE {key uniform 1000} {range 1000 100}", "ZRANGEBYSCORE key___RAND__ __RAND2{r1}__ __RAND2{r1}+100__"},
		{`SET "a b" 'c"d' x{rand 5}`, `SET "a b" "c\"d" x__RAND__`},
		{"SADD s{key uniform 3}:{key uniform 3} x", "SADD skey___RAND__:key___RAND__ x"},
		{"GET {key zipfian 10}", "GET key___RAND__"},
	}
	for _, c := range cases {
		tr, err := Translate(c.cmd)
		require.NoError(t, err, c.cmd)
		assert.Equal(t, c.text, tr.Text, c.cmd)
	}
}

func TestTranslateRefuses(t *testing.T) {
	for cmd, want := range map[string]string{
		"":                              "the command is empty",
		"GET {key uniform}":             "wrong number of arguments for the key placeholder",
		"GET {key gauss 10}":            `unknown distribution "gauss"`,
		"GET {keys uniform 10}":         `unknown placeholder "keys"`,
		"GET {key uniform x}":           `"x" is not a whole number`,
		"GET {key uniform 0}":           "a range of 0 keys",
		"SET {key uniform 9} {value 0}": "a value of 0 bytes",
		"MSET {value 8} {value 16}":     "two {value} sizes",
		"GET {key uniform 10":           "unterminated placeholder",
		`SET "a`:                        "unterminated \" quote",
		"SET __RAND__ x":                "cannot send them as text",
		"X {rand 1} {rand 2} {rand 3} {rand 4} {rand 5} {rand 6} {rand 7} {rand 8} {rand 9} {rand 10}": "more than 9 kinds",
	} {
		_, err := Translate(cmd)
		assert.ErrorContains(t, err, want, cmd)
	}
}

// TestPlaceholdersExpandAsRespBenchmarks: keys are key_ and ten digits,
// zipfian keys run 1 … N, sequences walk each placeholder's own counter,
// {range N W} is a start and start+W at most N-1, {value N} N
// alphanumerics.
func TestPlaceholdersExpandAsRespBenchmarks(t *testing.T) {
	key := regexp.MustCompile(`^key_\d{10}$`)
	for _, c := range expand(t, "SET {key uniform 100} {value 12}", 200) {
		assert.Regexp(t, key, c[1])
		assert.Regexp(t, `^[a-zA-Z0-9]{12}$`, c[2])
	}
	seen := map[string]int{}
	for _, c := range expand(t, "GET {key zipfian 50}", 5000) {
		seen[c[1]]++
	}
	assert.Zero(t, seen["key_0000000000"], "zipfian ranks start at 1")
	assert.Positive(t, seen["key_0000000050"]+seen["key_0000000049"]+seen["key_0000000048"], "and reach N")
	assert.Greater(t, seen["key_0000000001"], seen["key_0000000002"])
	for i, c := range expand(t, "SADD {key sequence 3} {key sequence 5}", 7) {
		assert.Equal(t, []string{"SADD", "key_000000000" + strconv.Itoa(i%3), "key_000000000" + strconv.Itoa(i%5)}, c,
			"each sequence placeholder walks its own counter")
	}
	for _, c := range expand(t, "LRANGE l {range 20 5}", 500) {
		lo, _ := strconv.Atoi(c[2])
		hi, _ := strconv.Atoi(c[3])
		assert.Equal(t, min(lo+5, 19), hi)
		assert.Less(t, lo, 20)
	}
}

func FuzzTranslate(f *testing.F) {
	for _, s := range []string{"SET {key uniform 10} {value 8}", `"a" 'b' {range 10 2}`, "{", "x{rand 3}y", "{key zipfian 18446744073709551615}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		tr, err := Translate(cmd)
		if err != nil {
			return
		}
		tp, err := cmdtmpl.Parse(tr.Text)
		require.NoError(t, err, "a translation parses: %q → %q", cmd, tr.Text)
		if tr.Options.DataSize > 1<<20 {
			return // a value pool that large is the user's to ask for, not the fuzzer's
		}
		if _, err := cmdtmpl.Compile(tp, tr.Options); err == nil {
			assert.Equal(t, countArgs(t, cmd), tp.NumArgs(), "%q → %q", cmd, tr.Text)
		}
	})
}

// countArgs is the number of arguments resp-benchmark sends for cmd.
func countArgs(t *testing.T, cmd string) int {
	ws, err := words(cmd)
	require.NoError(t, err)
	n := 0
	for _, w := range ws {
		n++
		if len(w) == 1 && len(w[0].placeholder) > 0 && w[0].placeholder[0] == "range" {
			n++
		}
	}
	return n
}
