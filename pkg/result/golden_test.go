package result

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldens are result documents as tairbench's commands wrote them (small
// runs on the embedded server; the command that made each is beside it),
// one for every schema this version writes.
var goldens = []struct{ file, schema, command string }{
	{"run.json", SchemaRun, "redis --embedded -p 2 -c 300 -r 100 -command 'SET k-__RAND__ v' --json run.json -q"},
	{"compat.json", SchemaCompat, "resp-benchmark --embedded -c 2 -n 300 -q --json compat.json 'SET {key uniform 100} {value 8}'"},
	{"capacity.json", SchemaCapacity, "redis --embedded -p 2 -r 100 -command 'GET k-__RAND__' --slo 'p99<50ms' --slo-window 1 --slo-warmup 0 --slo-max-steps 2 --slo-start 200 --json capacity.json -q"},
	{"roaring.json", SchemaRoaring, "roaring --embedded --cases single-write/setbit --duration-per-case 0.3 --seed 1 --json roaring.json"},
	{"roaring-stat.json", SchemaRoaringStat, "roaring stat --embedded --stat-dist sparse --stat-max-card 1000 --stat-steps 2 --json roaring-stat.json"},
	{"whitepaper.json", SchemaWhitepaper, "suite enhanced --requests 200 --sizes 64 --no-server-stats --json whitepaper.json"},
	{"bitmap.json", SchemaBitmap, "bitmap compare --cardinality 1000 --universe 2^16 -d 0.2 --structures tairroaring --probes 10 --json bitmap.json"},
	{"search.json", SchemaSearch, "search compare --embedded --es URL -f wiki.xml (wiki gen --docs 300) -n 300 -c 2 --queries 200 --no-cache-queries 50 --json search.json"},
	{"track.json", SchemaTrack, "search run whitepaper --embedded --docs 200 --iterations 20 --samples 1 --seed 1 --json track.json --quiet"},
	{"vector.json", SchemaVector, "vector --embedded --n 300 --nq 10 --dims 8 --centres 5 --ef-search 10,20 -d 200ms --warmup 0 --truth-dir '' --json vector.json"},
}

// TestGoldenDocumentsRoundTrip: every schema's document, as a command
// wrote it, reads back into its Go type and writes out with every field
// it held: nothing the writer put in is lost by a reader.
func TestGoldenDocumentsRoundTrip(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.schema, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", g.file))
			require.NoError(t, err, "made by: tairbench %s", g.command)
			doc, err := Read(bytes.NewReader(raw))
			require.NoError(t, err)
			assert.Equal(t, g.schema, doc.Head().Schema)
			var out bytes.Buffer
			require.NoError(t, EncodeJSON(&out, doc))
			var want, got any
			require.NoError(t, json.Unmarshal(raw, &want))
			require.NoError(t, json.Unmarshal(out.Bytes(), &got))
			assert.Equal(t, want, got, "%s: the document written again equals the one read", g.file)
		})
	}
	schemas := map[string]bool{}
	for _, g := range goldens {
		schemas[g.schema] = true
	}
	for _, s := range []string{SchemaRun, SchemaRoaring, SchemaSearch, SchemaCapacity, SchemaCompat, SchemaWhitepaper,
		SchemaBitmap, SchemaRoaringStat, SchemaTrack, SchemaVector} {
		assert.True(t, schemas[s], "no golden document of %s", s)
	}
}

// TestEarlierDocuments: a run/v2 written before span_s is still read;
// a v1 run and roaring stat's old bare array are refused by name.
func TestEarlierDocuments(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "run.json"))
	require.NoError(t, err)
	before := regexp.MustCompile(`,?\s*"span_s": [0-9.e-]+`).ReplaceAll(raw, nil)
	require.NotEqual(t, raw, before, "the golden run has a partial last second")
	doc, err := Read(bytes.NewReader(before))
	require.NoError(t, err)
	run := doc.(*Run)
	assert.Zero(t, run.Series[len(run.Series)-1].SpanS)

	v1 := bytes.Replace(raw, []byte(SchemaRun), []byte("tairbench.run/v1"), 1)
	_, err = Read(bytes.NewReader(v1))
	assert.ErrorContains(t, err, `unknown schema "tairbench.run/v1" (this version reads tairbench.run/v2`)
	_, err = Read(bytes.NewReader([]byte(`[{"distribution": "sparse"}]`)))
	assert.ErrorContains(t, err, "run it again")
	_, err = Read(bytes.NewReader([]byte(`{"tool_version": "x"}`)))
	assert.ErrorContains(t, err, `no "schema" field`)
}
