//go:build !unix

package engine

// readCPU is not implemented on this platform; CPU figures read as zero.
func readCPU() CPUUsage { return CPUUsage{} }
