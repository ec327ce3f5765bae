package common

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTake(t *testing.T) {
	cases := []struct {
		args []string
		used int
		want func(*Options)
		err  string
	}{
		{[]string{"--embedded"}, 1, func(o *Options) { o.Embedded = true }, ""},
		{[]string{"--json", "r.json"}, 2, func(o *Options) { o.JSON = "r.json" }, ""},
		{[]string{"--json=r.json"}, 1, func(o *Options) { o.JSON = "r.json" }, ""},
		{[]string{"--seed", "42"}, 2, func(o *Options) { o.Seed = 42 }, ""},
		{[]string{"--no-server-stats"}, 1, func(o *Options) { o.NoServerStats = true }, ""},
		{[]string{"--dry-run"}, 1, func(o *Options) { o.DryRun = true }, ""},
		{[]string{"--timeout", "2s"}, 2, func(o *Options) { o.Timeout = 2 * time.Second }, ""},
		{[]string{"--metrics-addr", ":9100"}, 2, func(o *Options) { o.MetricsAddr = ":9100" }, ""},
		{[]string{"--metrics-linger", "5"}, 2, func(o *Options) { o.MetricsLinger = 5 * time.Second }, ""},
		{[]string{"--metrics-linger=1m"}, 1, func(o *Options) { o.MetricsLinger = time.Minute }, ""},
		{[]string{"--ratio", "1:1"}, 0, func(*Options) {}, ""},
		{[]string{"-c", "4"}, 0, func(*Options) {}, ""},
		{[]string{"--seed", "x"}, 2, nil, `--seed "x"`},
		{[]string{"--timeout"}, 1, nil, "--timeout needs a value"},
		{[]string{"--timeout", "2"}, 2, nil, `--timeout "2"`},
	}
	for _, c := range cases {
		t.Run(c.args[0], func(t *testing.T) {
			o := Defaults()
			used, err := o.Take(c.args, 0)
			assert.Equal(t, c.used, used)
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			want := Defaults()
			c.want(&want)
			assert.Equal(t, want, o)
		})
	}
}

// TestRegisterKeepsDefaults: declaring the options on a flag set keeps
// the values they hold as the defaults help shows.
func TestRegisterKeepsDefaults(t *testing.T) {
	o := Defaults()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	o.Register(fs, "tairbench: ")
	assert.Equal(t, "10s", fs.Lookup("timeout").DefValue)
	assert.Contains(t, fs.Lookup("embedded").Usage, "tairbench: ")
	require.NoError(t, fs.Parse([]string{"--embedded", "--json", "-"}))
	assert.True(t, o.Embedded)
	assert.Equal(t, "-", o.JSON)
	assert.Equal(t, 30*time.Second, o.MetricsLinger)
}
