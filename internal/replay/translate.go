package replay

import (
	"io"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/commands"
	"github.com/tairbench/tairbench/internal/trace"
)

// IsBitmapCommand says whether a command (upper case) is one of Redis's
// bitmap commands.
func IsBitmapCommand(name string) bool { return bitmapCommands[name] }

// bitmapCommands are Redis's bitmap commands: their keys are bitmaps.
var bitmapCommands = map[string]bool{"SETBIT": true, "GETBIT": true, "BITCOUNT": true, "BITPOS": true, "BITOP": true,
	"BITFIELD": true, "BITFIELD_RO": true}

// anyType are commands that work alike on a key of any type: sent as
// they are on a bitmap key.
var anyType = map[string]bool{"DEL": true, "UNLINK": true, "EXISTS": true, "EXPIRE": true, "PEXPIRE": true,
	"EXPIREAT": true, "PEXPIREAT": true, "TTL": true, "PTTL": true, "PERSIST": true, "TOUCH": true}

// BitmapKeys reads the records and returns the keys a bitmap command
// names.
func BitmapKeys(r Records) (map[string]bool, error) {
	keys := map[string]bool{}
	var rec trace.Record
	for {
		err := r.Read(&rec)
		if err == io.EOF {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		name := upper(rec.Args[0])
		if !bitmapCommands[name] {
			continue
		}
		for _, k := range commands.KeyPositions(name, len(rec.Args)) {
			keys[string(rec.Args[k])] = true
		}
	}
}

// Translator reads records through a translation of Redis bitmaps to
// TairRoaring: each bitmap command becomes its TR.* equivalent (when
// ToRoaring), and a command that does not map is left out, counted with
// the reason, in both directions, so that the original and its
// translation carry the same traffic.
type Translator struct {
	r         Records
	keys      map[string]bool
	toRoaring bool
	// Unmapped counts the commands left out, by reason.
	Unmapped map[string]int64
	args     [][]byte
}

// NewTranslator translates r's records on keys (BitmapKeys); toRoaring
// sends the TR.* commands, else the originals that map.
func NewTranslator(r Records, keys map[string]bool, toRoaring bool) *Translator {
	return &Translator{r: r, keys: keys, toRoaring: toRoaring, Unmapped: map[string]int64{}}
}

// Meta implements Records.
func (t *Translator) Meta() trace.Meta { return t.r.Meta() }

// Read implements Records: the next record that maps.
func (t *Translator) Read(rec *trace.Record) error {
	for {
		if err := t.r.Read(rec); err != nil {
			return err
		}
		args, why := t.Translate(rec.Args)
		if why != "" {
			t.Unmapped[why]++
			continue
		}
		if t.toRoaring {
			rec.Args = args
		}
		return nil
	}
}

// Translate is a command as TairRoaring's (valid until the next call),
// or why it does not map.
func (t *Translator) Translate(args [][]byte) ([][]byte, string) {
	name := upper(args[0])
	if bitmapCommands[name] {
		return t.bitmap(name, args)
	}
	for _, k := range commands.KeyPositions(name, len(args)) {
		if t.keys[string(args[k])] && !anyType[name] {
			return nil, name + " on a bitmap key: a string command, with no TairRoaring equivalent"
		}
	}
	return args, ""
}

// bitmap maps one bitmap command.
func (t *Translator) bitmap(name string, args [][]byte) ([][]byte, string) {
	out := func(cmd string, rest ...[]byte) ([][]byte, string) {
		t.args = append(append(t.args[:0], []byte(cmd)), rest...)
		return t.args, ""
	}
	n := len(args)
	switch {
	case name == "SETBIT" && n == 4:
		return out("TR.SETBIT", args[1:]...)
	case name == "GETBIT" && n == 3:
		return out("TR.GETBIT", args[1:]...)
	case name == "BITCOUNT" && n == 2:
		return out("TR.BITCOUNT", args[1])
	case name == "BITCOUNT" && (n == 4 || n == 5):
		return t.bitcountRange(args)
	case name == "BITPOS" && n == 3:
		return out("TR.BITPOS", args[1:]...)
	case name == "BITPOS":
		return nil, "BITPOS with a range: Redis's range is over the string's bytes"
	case name == "BITOP" && n >= 4:
		op := strings.ToUpper(string(args[1]))
		if op != "AND" && op != "OR" && op != "XOR" {
			return nil, "BITOP " + op + ": Redis complements to the string's last byte, TairRoaring to the bitmap's last bit"
		}
		return out("TR.BITOP", append([][]byte{args[2], args[1]}, args[3:]...)...)
	case (name == "BITFIELD" || name == "BITFIELD_RO") && n == 5 && strings.EqualFold(string(args[2]), "GET") && isU1(args[3]):
		return out("TR.GETBIT", args[1], args[4])
	case name == "BITFIELD" && n == 6 && strings.EqualFold(string(args[2]), "SET") && isU1(args[3]):
		return out("TR.SETBIT", args[1], args[4], args[5])
	case name == "BITFIELD" || name == "BITFIELD_RO":
		return nil, name + " beyond one 1-bit GET or SET"
	}
	return nil, name + " with these arguments"
}

// bitcountRange maps BITCOUNT key start end [BYTE|BIT] where start and
// end are not counted from the end: a byte range covers bits 8·start to
// 8·end+7.
func (t *Translator) bitcountRange(args [][]byte) ([][]byte, string) {
	start, err1 := strconv.ParseInt(string(args[2]), 10, 64)
	end, err2 := strconv.ParseInt(string(args[3]), 10, 64)
	bit := len(args) == 5 && strings.EqualFold(string(args[4]), "BIT")
	switch {
	case err1 != nil || err2 != nil:
		return nil, "BITCOUNT with a range that is not a number"
	case start < 0 || end < 0:
		return nil, "BITCOUNT with a range from the end: the string's length is not the bitmap's"
	case len(args) == 5 && !bit && !strings.EqualFold(string(args[4]), "BYTE"):
		return nil, "BITCOUNT with an unknown unit"
	case !bit:
		start, end = 8*start, 8*end+7
	}
	t.args = append(t.args[:0], []byte("TR.BITCOUNT"), args[1],
		strconv.AppendInt(nil, start, 10), strconv.AppendInt(nil, end, 10))
	return t.args, ""
}

// isU1 says whether a BITFIELD type is one unsigned bit.
func isU1(b []byte) bool { return strings.EqualFold(string(b), "u1") }
