package replay

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/result"
)

// bitmapTrace writes a trace of bitmap traffic on 20 keys (and a GET of
// one of them, which has no TairRoaring equivalent).
func bitmapTrace(t *testing.T, path string) {
	var recs []trace.Record
	for i := range 2000 {
		k := fmt.Sprintf("u:%d:days", i%20)
		var cmd string
		switch i % 8 {
		case 0, 1, 2:
			cmd = fmt.Sprintf("SETBIT %s %d 1", k, (i*7919)%50000)
		case 3:
			cmd = fmt.Sprintf("GETBIT %s %d", k, (i*104729)%50000)
		case 4:
			cmd = "BITCOUNT " + k
		case 5:
			cmd = fmt.Sprintf("BITCOUNT %s 0 999", k)
		case 6:
			cmd = fmt.Sprintf("BITOP OR u:all %s u:%d:days", k, (i+1)%20)
		default:
			cmd = "BITPOS " + k + " 1"
		}
		if i == 1000 {
			cmd = "GET " + k
		}
		recs = append(recs, trace.Record{At: time.Duration(i) * time.Millisecond, Conn: uint32(i % 2), Args: testenv.Args(cmd)})
	}
	testenv.WriteTrace(t, path, recs)
}

// TestTranslateBitmaps: a bitmap trace replayed on redis-server as it
// was and on the embedded server as TairRoaring: both runs, every sampled
// answer alike, the memory of each, what does not map left out of both,
// and the document read back.
func TestTranslateBitmaps(t *testing.T) {
	srv := testenv.StartRedis(t)
	dir := t.TempDir()
	path, out := filepath.Join(dir, "bm.tbt"), filepath.Join(dir, "tr.json")
	bitmapTrace(t, path)
	red := options(t, srv.Addr, path).Target
	o := options(t, "127.0.0.1:6379", path)
	o.Options = common.Options{Embedded: true, JSON: out}
	o.Translate, o.Redis, o.Speed, o.Out.Quiet = TranslateBitmaps, &red, 4, true
	hio, stdout, errb := harness.Captured("test")
	_, err := Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	assert.Contains(t, stdout.String(), "replayed as it was and translated (bitmaps=tairroaring)")
	doc, err := result.ReadFile(out)
	require.NoError(t, err)
	d, ok := doc.(*result.Translation)
	require.True(t, ok)
	assert.Equal(t, int64(21), d.BitmapKeys, "20 keys and BITOP's destination")
	require.NotNil(t, d.Original)
	require.NotNil(t, d.Translated)
	assert.Equal(t, d.Original.Totals.Ops, d.Translated.Totals.Ops, "the same traffic on both")
	assert.Zero(t, d.Original.Totals.Errors)
	assert.Zero(t, d.Translated.Totals.Errors)
	assert.Equal(t, []result.ReplayDrop{{What: "GET on a bitmap key: a string command, with no TairRoaring equivalent", Count: 1}}, d.Unmapped)
	a := d.Agreement
	assert.Positive(t, a.Commands)
	assert.Equal(t, a.Commands, a.Agreed, "every sampled answer agrees: %+v", a.Disagreements)
	assert.Equal(t, int64(21), a.Keys)
	assert.Positive(t, d.Memory.OriginalBytes)
	assert.Positive(t, d.Memory.TranslatedBytes)
	assert.Less(t, d.Memory.TranslatedBytes, d.Memory.OriginalBytes, "sparse bits: smaller as TairRoaring")
	assert.Equal(t, "0", testenv.Do(t, srv.Addr, "EXISTS", "tairbench:verify:redis:u:1:days"), "the check's keys are removed")
}

// TestTranslateRefuses: what a translation cannot do is refused first.
func TestTranslateRefuses(t *testing.T) {
	dir := t.TempDir()
	bm, plain := filepath.Join(dir, "bm.tbt"), filepath.Join(dir, "plain.tbt")
	bitmapTrace(t, bm)
	writeTrace(t, plain, 1, 10, 1000)
	red := options(t, "127.0.0.1:1", bm).Target
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Translate = "sets=tairroaring" }, `--translate "sets=tairroaring": tairbench translates bitmaps=tairroaring`},
		{func(o *Options) { o.Preload = true }, "--preload cannot be combined with --translate"},
		{func(o *Options) { o.Embedded, o.Redis = true, nil }, "needs --redis HOST:PORT"},
		{func(o *Options) { o.Trace = plain }, "no bitmap command"},
	} {
		o := options(t, "127.0.0.1:1", bm)
		o.Translate, o.Redis = TranslateBitmaps, &red
		c.edit(&o)
		hio, _, _ := harness.Captured("test")
		_, err := Run(context.Background(), o, hio)
		assert.ErrorContains(t, err, c.want)
	}
}
