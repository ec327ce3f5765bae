package cli

import (
	"fmt"
	"io"
	"os"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// writeOutputs writes the result files named by out.
func writeOutputs(run *result.Run, h *hdr.Histogram, out *outputFlags, s Streams) error {
	write := func(path string, f func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		if path == "-" {
			return f(s.Out)
		}
		file, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("cannot write result: %w", err)
		}
		if err := f(file); err != nil {
			file.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		return file.Close()
	}
	if err := write(out.json, func(w io.Writer) error { return report.JSON(w, run) }); err != nil {
		return err
	}
	if err := write(out.csv, func(w io.Writer) error { return report.CSV(w, run) }); err != nil {
		return err
	}
	if h != nil {
		if err := write(out.hgrm, func(w io.Writer) error { return report.HGRM(w, h) }); err != nil {
			return err
		}
	}
	return nil
}
