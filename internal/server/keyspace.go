package server

import (
	"slices"
	"sync"
)

// numShards is the number of lock shards per database. Commands lock only
// the shards of the keys they touch.
const numShards = 256

type shard struct {
	mu sync.RWMutex
	m  map[string]Value
}

// db is one logical database.
type db struct {
	shards [numShards]shard
}

func newDB() *db {
	d := &db{}
	for i := range d.shards {
		d.shards[i].m = map[string]Value{}
	}
	return d
}

// shardOf hashes a key (FNV-1a) to its shard without allocating.
func shardOf(key []byte) uint16 {
	h := uint32(2166136261)
	for _, c := range key {
		h ^= uint32(c)
		h *= 16777619
	}
	return uint16(h % numShards)
}

func (d *db) get(key []byte) Value { return d.shards[shardOf(key)].m[string(key)] }

func (d *db) set(key []byte, v Value) { d.shards[shardOf(key)].m[string(key)] = v }

func (d *db) del(key []byte) bool {
	s := &d.shards[shardOf(key)]
	if _, ok := s.m[string(key)]; ok {
		delete(s.m, string(key))
		return true
	}
	return false
}

// lockSet is the sorted, de-duplicated set of shards a command locks.
type lockSet struct {
	ids   []uint16
	all   bool
	write bool
}

func (l *lockSet) reset(write bool) {
	l.ids = l.ids[:0]
	l.all = false
	l.write = write
}

func (l *lockSet) add(key []byte) { l.ids = append(l.ids, shardOf(key)) }

func (l *lockSet) normalize() {
	if len(l.ids) < 2 {
		return
	}
	slices.Sort(l.ids)
	out := l.ids[:1]
	for _, id := range l.ids[1:] {
		if id != out[len(out)-1] {
			out = append(out, id)
		}
	}
	l.ids = out
}

// lock takes the shards in ascending order (so that no two commands deadlock).
func (d *db) lock(l *lockSet) {
	if l.all {
		for i := range d.shards {
			if l.write {
				d.shards[i].mu.Lock()
			} else {
				d.shards[i].mu.RLock()
			}
		}
		return
	}
	for _, id := range l.ids {
		if l.write {
			d.shards[id].mu.Lock()
		} else {
			d.shards[id].mu.RLock()
		}
	}
}

func (d *db) unlock(l *lockSet) {
	if l.all {
		for i := range d.shards {
			if l.write {
				d.shards[i].mu.Unlock()
			} else {
				d.shards[i].mu.RUnlock()
			}
		}
		return
	}
	for _, id := range l.ids {
		if l.write {
			d.shards[id].mu.Unlock()
		} else {
			d.shards[id].mu.RUnlock()
		}
	}
}

// count returns the number of keys; the caller holds all shard locks.
func (d *db) count() int {
	n := 0
	for i := range d.shards {
		n += len(d.shards[i].m)
	}
	return n
}

// keyOverhead is what a key costs besides its name and value: the map
// slot, the interface and the string header, roughly.
const keyOverhead = 64

// memory estimates the bytes held by keys and values and counts the keys of
// each type; the caller holds all shard locks.
func (d *db) memory(types map[string]int) (bytes uint64) {
	for i := range d.shards {
		for k, v := range d.shards[i].m {
			bytes += keyOverhead + uint64(len(k)) + v.MemoryBytes()
			types[v.TypeName()]++
		}
	}
	return bytes
}

func (d *db) flush() {
	for i := range d.shards {
		d.shards[i].m = map[string]Value{}
	}
}
