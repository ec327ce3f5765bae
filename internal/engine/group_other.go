//go:build !linux

package engine

import "sync"

// startGroups runs no groups outside Linux: every worker runs on its own.
func (r *runState) startGroups([]Worker, []uint64, *sync.WaitGroup) bool { return false }
