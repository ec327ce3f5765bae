package replay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/replay"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// TranslateBitmaps is the translation tairbench knows: Redis bitmaps to
// TairRoaring.
const TranslateBitmaps = "bitmaps=tairroaring"

// translatedNames pair each bitmap command with its translation, as the
// runs' operations name them (BITFIELD maps to TR.GETBIT or TR.SETBIT,
// counted with those).
var translatedNames = [][2]string{{"SETBIT", "TR.SETBIT"}, {"GETBIT", "TR.GETBIT"}, {"BITCOUNT", "TR.BITCOUNT"},
	{"BITPOS", "TR.BITPOS"}, {"BITOP", "TR.BITOP"}}

// side is one of a translation's two replays.
type side struct {
	name      string
	tg        endpoint.Target
	toRoaring bool
	prefix    string
}

// checkTranslate refuses what a translation cannot do, before anything
// is read or sent.
func checkTranslate(o Options) error {
	switch {
	case o.Translate != TranslateBitmaps:
		return fmt.Errorf("--translate %q: tairbench translates %s", o.Translate, TranslateBitmaps)
	case o.Preload:
		return errors.New("--preload cannot be combined with --translate: the bitmaps are the trace's own writes")
	case o.Embedded && o.Redis == nil:
		return errors.New("--translate on the embedded server needs --redis HOST:PORT: the embedded server has TairRoaring, not Redis bitmaps")
	}
	return nil
}

// translate replays the trace's traffic twice: as it was, Redis bitmaps
// on the Redis server (--redis, else the target), and translated to
// TairRoaring on the target; then asks both structures the same
// questions on a sample of keys, and weighs the bitmaps in each.
func translate(ctx context.Context, o Options, io harness.IO) (*result.Translation, error) {
	keys, err := bitmapKeys(o.Trace)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no bitmap command (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD) to translate", o.Trace)
	}
	tr, stop, err := target.Embed(io, o.Target, nil, o.Embedded)
	if err != nil {
		return nil, err
	}
	defer stop()
	red := tr
	if o.Redis != nil {
		red = *o.Redis
	}
	doc := &result.Translation{Header: result.NewHeader(result.SchemaTranslation, io.Version), Translate: o.Translate,
		Trace: filepath.Base(o.Trace), BitmapKeys: int64(len(keys))}
	sides := []side{{"redis bitmaps", red, false, o.KeyPrefix + "redis:"}, {"tairroaring", tr, true, o.KeyPrefix + "tairroaring:"}}
	sub, subIO := o.Out, io
	sub.JSON, sub.CSV, sub.HGRM = "", "", ""
	if o.JSON == "-" {
		subIO.Out = io.Err
	}
	var runErr error
	for _, sd := range sides {
		res, unmapped, err := replaySide(ctx, o, subIO, sub, sd, keys)
		if res == nil {
			return nil, err
		}
		runErr = errors.Join(runErr, err)
		if sd.toRoaring {
			doc.Translated = res
		} else {
			doc.Original, doc.Unmapped = res, unmapped
		}
	}
	for _, p := range translatedNames {
		doc.Pairs = append(doc.Pairs, result.TranslationPair{Original: p[0], Translated: p[1]})
	}
	if doc.Agreement, err = agree(ctx, o.Trace, keys, red, tr); err != nil {
		return nil, err
	}
	if doc.Memory, err = weigh(ctx, keys, sides); err != nil {
		return nil, err
	}
	fmt.Fprintln(io.Out)
	report.WriteTable(io.Out, report.TranslationTable(doc))
	if o.JSON != "" {
		if err := output.WriteDocument(io, o.JSON, doc); err != nil {
			return doc, err
		}
	}
	if a := doc.Agreement; a.Agreed < a.Commands {
		runErr = errors.Join(runErr, fmt.Errorf("the structures answered %d of %d sampled commands differently", a.Commands-a.Agreed, a.Commands))
	}
	return doc, runErr
}

// replaySide replays one side: its census, the target's key positions,
// its schedule and run. The run is nil only when it could not start.
func replaySide(ctx context.Context, o Options, io harness.IO, out output.Outputs, sd side, keys map[string]bool) (*result.Run, []result.ReplayDrop, error) {
	r, done, err := openTrace(o.Trace)
	if err != nil {
		return nil, nil, err
	}
	t := replay.NewTranslator(r, keys, sd.toRoaring)
	census, err := replay.Scan(t)
	done()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", o.Trace, err)
	}
	var unmapped []result.ReplayDrop
	for why, n := range t.Unmapped {
		unmapped = append(unmapped, result.ReplayDrop{What: why, Count: n})
	}
	specs, err := driver.CommandSpecs(ctx, sd.tg, census.NameList())
	if err != nil {
		return nil, nil, fmt.Errorf("asking %s where the trace's keys are: %w", sd.tg.Addr, err)
	}
	only, _ := replay.ParseOnly(o.Only)
	r, done, err = openTrace(o.Trace)
	if err != nil {
		return nil, nil, err
	}
	s, err := replay.Build(replay.NewTranslator(r, keys, sd.toRoaring), census, specs,
		replay.Options{KeyPrefix: sd.prefix, Only: only, SkipUnknown: o.SkipUnknown, Shard: o.Shard.I, Shards: o.Shard.N,
			MaxBytes: maxBytes(o)}, false)
	done()
	if err != nil {
		return nil, nil, fmt.Errorf("%s (%s): %w", o.Trace, sd.name, err)
	}
	fmt.Fprintf(io.Err, "%s → %s:\n", sd.name, sd.tg.Addr)
	describe(io, o, s)
	so := o
	so.KeyPrefix = sd.prefix
	spec := runSpec(so, io, sd.tg, census, s, nil)
	spec.Name = sd.name
	res, err := output.Execution{Sinks: o.Sinks, Out: out, AllowErrors: o.AllowErrors}.Execute(ctx, io, spec)
	return res, unmapped, err
}
