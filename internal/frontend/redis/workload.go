package redis

import (
	"errors"
	"fmt"
	"os"
	"strings"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/workload"
)

// fromWorkload reads o.Workload's file into the run's templates: each
// operation a mix entry with its own ranges and data size; the rate its
// multiple of the file's (RateTimes), the connections its own unless -p
// was given. Template flags beside it are refused: they would be ignored.
func fromWorkload(o *Options) ([]driver.MixEntry, error) {
	if o.Workload == "" {
		if o.RateTimes > 0 {
			return nil, fmt.Errorf("--rate %gx is a multiple of a workload's rate: give --workload FILE, or a rate per second", o.RateTimes)
		}
		return nil, nil
	}
	if len(o.TemplateFlags) > 0 {
		return nil, fmt.Errorf("--workload gives the commands, their ranges and sizes: %s cannot be combined with it (edit the file)",
			strings.Join(o.TemplateFlags, ", "))
	}
	if o.Preload {
		return nil, errors.New("--preload cannot be combined with --workload yet: fill the keys with a run of the workload's writes first")
	}
	f, err := os.Open(o.Workload)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w, err := workload.Read(f)
	if err != nil {
		return nil, fmt.Errorf("--workload %s: %w", o.Workload, err)
	}
	if o.RateTimes > 0 {
		if w.Rate <= 0 {
			return nil, fmt.Errorf("--rate %gx: %s gives no rate to multiply (set its rate, or give --rate per second)", o.RateTimes, o.Workload)
		}
		o.Rate = o.RateTimes * w.Rate
	}
	if !o.ParallelGiven && w.Connections > 0 {
		o.Parallel = w.Connections
	}
	var mix []driver.MixEntry
	o.Commands = nil
	for _, op := range w.Operations {
		opts, err := op.Options()
		if err != nil {
			return nil, fmt.Errorf("--workload %s: %w", o.Workload, err)
		}
		o.Commands = append(o.Commands, op.Command)
		mix = append(mix, driver.MixEntry{Name: op.Name, Template: op.Command, Weight: int(op.Weight), Options: &opts})
	}
	return mix, nil
}
