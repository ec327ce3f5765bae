package events

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in     string
		at     time.Duration
		action string
		args   []string
		text   string
	}{
		{"at=20s bgsave", 20 * time.Second, "bgsave", []string{}, "bgsave"},
		{"at=1.5 BGREWRITEAOF", 1500 * time.Millisecond, "bgrewriteaof", []string{}, "bgrewriteaof"},
		{"at=5s config set appendfsync always", 5 * time.Second, "config-set", []string{"appendfsync", "always"}, "config set appendfsync always"},
		{"at=5s CONFIG SET save ''", 5 * time.Second, "config-set", []string{"save", ""}, "config set save ''"},
		{"at=1m client pause 2000 write", time.Minute, "client-pause", []string{"2000", "write"}, "client pause 2000 write"},
		{"at=3s debug sleep 0.5", 3 * time.Second, "debug-sleep", []string{"0.5"}, "debug sleep 0.5"},
		{"at=10s failover", 10 * time.Second, "failover", []string{}, "failover"},
		{"at=10s kill", 10 * time.Second, "kill", []string{}, "kill"},
		{"at=10s restart", 10 * time.Second, "restart", []string{}, "restart"},
		{"at=5s reshard 1000 slots from 127.0.0.1:7000 to 127.0.0.1:7001", 5 * time.Second, "reshard",
			[]string{"1000", "slots", "from", "127.0.0.1:7000", "to", "127.0.0.1:7001"}, "reshard 1000 slots from 127.0.0.1:7000 to 127.0.0.1:7001"},
		{`at=2s exec 'redis-cli -p 7001 cluster failover'`, 2 * time.Second, "exec", []string{"redis-cli -p 7001 cluster failover"},
			"exec 'redis-cli -p 7001 cluster failover'"},
		{`at=2s exec "echo it's"`, 2 * time.Second, "exec", []string{"echo it's"}, `exec 'echo it'\''s'`},
	} {
		t.Run(c.in, func(t *testing.T) {
			e, err := Parse(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.at, e.At)
			assert.Equal(t, c.action, e.Action)
			assert.Equal(t, c.args, append([]string{}, e.Args...))
			assert.Equal(t, c.text, e.Text)
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"bgsave":                       "starts with its time",
		"at=soon bgsave":               `time "soon"`,
		"at=-1s bgsave":                "before the run",
		"at=2s":                        "no action",
		"at=2s snapshot":               "unknown action",
		"at=2s bgsave now":             "bgsave takes no argument",
		"at=2s config set maxmemory":   "config set takes 2 argument(s)",
		"at=2s client pause soon":      "milliseconds",
		"at=2s client pause 100 reads": "WRITE or ALL",
		"at=2s debug sleep x":          "seconds",
		"at=2s exec 'ls":               "quote is not closed",
		"at=2s exec ''":                "a command to run",
		"at=2s reshard 1000":           "reshard is written",
	} {
		_, err := Parse(in)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"at=20s bgsave", "at=1 exec 'a b'", `at=2s config set a "b c"`, "at=3s client pause 10 all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		// What parses writes back to what parses alike.
		again, err := Parse("at=" + e.At.String() + " " + e.Text)
		require.NoError(t, err, "%q wrote back as %q", s, e.Text)
		assert.Equal(t, e.Action, again.Action)
		assert.Equal(t, e.Text, again.Text)
	})
}

func TestTimelineAndCheck(t *testing.T) {
	a, _ := Parse("at=10s failover")
	b, _ := Parse("at=5s bgsave")
	p := &Plan{Events: []Event{a, b}, Cycles: 3, Every: 20 * time.Second}
	tl := p.Timeline()
	require.Len(t, tl, 6)
	var got []string
	for _, e := range tl {
		got = append(got, e.At.String()+" "+e.Text+" #"+string(rune('0'+e.Cycle)))
	}
	assert.Equal(t, []string{"5s bgsave #1", "10s failover #1", "25s bgsave #2", "30s failover #2", "45s bgsave #3", "50s failover #3"}, got)
	require.NoError(t, p.Check(60*time.Second))
	err := p.Check(50 * time.Second)
	require.Error(t, err)
	assert.Equal(t, "event at 50s (failover, cycle 3) is past the run's end (50s)", err.Error())
	assert.ErrorContains(t, p.Check(0), "a run of a duration")
	assert.ErrorContains(t, (&Plan{Events: []Event{a}, Cycles: 2}).Check(time.Minute), "--every")
	assert.NoError(t, (*Plan)(nil).Check(0))
}

func TestScenario(t *testing.T) {
	p, err := ParseScenario([]byte("cycles: 5\nevery: 60s\nevents:\n  - at: 20s\n    do: failover\n  - at: 40s\n    do: bgsave\n"))
	require.NoError(t, err)
	assert.Equal(t, 5, p.Cycles)
	assert.Equal(t, time.Minute, p.Every)
	require.Len(t, p.Events, 2)
	assert.Equal(t, "failover", p.Events[0].Action)
	assert.Equal(t, 40*time.Second, p.Events[1].At)
	for in, want := range map[string]string{
		"events:\n  - at: 2s\n    do: bgsave\n    when: now\n": "field when not found",
		"events: []\n": "no events",
		"every: soon\nevents:\n  - at: 2s\n    do: bgsave\n": `every "soon"`,
		"events:\n  - do: bgsave\n":                          "event 1 needs at and do",
		"events:\n  - at: 2s\n    do: dance\n":               "event 1: event \"at=2s dance\": unknown action",
	} {
		_, err := ParseScenario([]byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}
