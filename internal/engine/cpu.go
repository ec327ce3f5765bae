package engine

import "time"

// CPUUsage is the CPU time this process used during a run.
type CPUUsage struct {
	User, Sys, Wall time.Duration
}

// Sub returns u minus v.
func (u CPUUsage) Sub(v CPUUsage) CPUUsage {
	return CPUUsage{User: u.User - v.User, Sys: u.Sys - v.Sys, Wall: u.Wall - v.Wall}
}

// Total returns user plus system time.
func (u CPUUsage) Total() time.Duration { return u.User + u.Sys }
