package workload

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

const good = `format: tairbench.workload/v1
rate: 100
connections: 2
operations:
  - name: get
    command: GET k-__RAND__
    weight: 3
    ranges: {1: {size: 10, dist: zipf, theta: 0.9, offset: 5}}
  - name: set
    command: SET k-__RAND__ __DATA__
    weight: 1
    ranges: {1: {size: 10}}
    data_size: 8
    data_max: 16
fitted:
  anything: [goes, here]
`

// TestRead: a good file reads, with its ranges as the templates take
// them; a bad one is refused with the reason.
func TestRead(t *testing.T) {
	w, err := Read(strings.NewReader(good))
	require.NoError(t, err)
	require.Len(t, w.Operations, 2)
	opts, err := w.Operations[0].Options()
	require.NoError(t, err)
	assert.Equal(t, cmdtmpl.Range{Max: 10, Dist: cmdtmpl.Zipf, Theta: 0.9, Offset: 5}, opts.Ranges[1])
	opts, err = w.Operations[1].Options()
	require.NoError(t, err)
	assert.Equal(t, 8, opts.DataSize)
	assert.Equal(t, 16, opts.DataMax)
	require.NotNil(t, w.Fitted, "notes are kept whatever they hold")

	var buf bytes.Buffer
	require.NoError(t, w.Write(&buf, "header\nlines"))
	assert.True(t, strings.HasPrefix(buf.String(), "# header\n# lines\nformat: tairbench.workload/v1\n"))
	back, err := Read(&buf)
	require.NoError(t, err)
	assert.Equal(t, w.Operations, back.Operations)

	tests := []struct {
		name, edit, want string
	}{
		{"unknown field", "rate: 100\n", "field rat not found"},
		{"an old format", "format: tairbench.workload/v1\n", `format "tairbench.workload/v0"`},
		{"a bad template", "command: GET k-__RAND__\n", "unterminated"},
		{"a bad range", "{1: {size: 10, dist: zipf, theta: 0.9, offset: 5}}", "zipf theta must be in (0, 1)"},
		{"range 0", "{1: {size: 10}}\n    data_size", "range 0: want 1 to 9"},
		{"no weight", "weight: 3", "weights add up to 0"},
	}
	replace := map[string][2]string{
		"unknown field":  {"rate: 100\n", "rat: 100\n"},
		"an old format":  {"format: tairbench.workload/v1\n", "format: tairbench.workload/v0\n"},
		"a bad template": {"command: GET k-__RAND__\n", "command: GET \"k\n"},
		"a bad range":    {"theta: 0.9,", "theta: 1.5,"},
		"range 0":        {"{1: {size: 10}}\n    data_size", "{0: {size: 10}}\n    data_size"},
		"no weight":      {"weight: 3", "weight: 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := replace[tc.name]
			in := strings.Replace(good, r[0], r[1], 1)
			if tc.name == "no weight" {
				in = strings.Replace(in, "weight: 1\n", "weight: 0\n", 1)
			}
			_, err := Read(strings.NewReader(in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = Read(strings.NewReader(""))
	assert.EqualError(t, err, "the workload file is empty")
}

// FuzzRead: no input panics the reader; what it accepts checks.
func FuzzRead(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("format: x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Read(bytes.NewReader(data))
		if err == nil {
			assert.NoError(t, w.Check())
		}
	})
}
