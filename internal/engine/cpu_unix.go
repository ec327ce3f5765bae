//go:build unix

package engine

import (
	"syscall"
	"time"
)

func readCPU() CPUUsage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return CPUUsage{}
	}
	return CPUUsage{
		User: time.Duration(ru.Utime.Nano()),
		Sys:  time.Duration(ru.Stime.Nano()),
	}
}
