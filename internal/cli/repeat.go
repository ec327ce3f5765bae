package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// repeatable are the flag value types that collect every occurrence.
var repeatable = map[string]bool{"stringArray": true, "stringSlice": true, "intSlice": true, "uintSlice": true,
	"int64Slice": true, "float64Slice": true, "boolSlice": true, "durationSlice": true, "count": true}

// repeatedFlag refuses a single-value flag given more than once (pflag
// keeps the last silently: `-q A -q B` would query B alone).
func repeatedFlag(cmd *cobra.Command, args []string) error {
	if cmd.DisableFlagParsing {
		return nil // the peer tools' front-ends read their own command lines
	}
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.AddFlagSet(cmd.Flags())
	fs.AddFlagSet(cmd.InheritedFlags())
	seen := map[string]int{}
	count := func(f *pflag.Flag) error {
		if f == nil || repeatable[f.Value.Type()] {
			return nil
		}
		if seen[f.Name]++; seen[f.Name] == 2 {
			return fmt.Errorf("--%s was given more than once: it takes one value (the last would silently win)", f.Name)
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			if err := count(f); err != nil {
				return err
			}
			if f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // its value
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			skip, err := countShorts(fs, a[1:], count)
			if err != nil {
				return err
			}
			i += skip
		}
	}
	return nil
}

// countShorts counts the short flags of one argument ("-q", "-p4",
// "-qv"); it returns 1 when the next argument is the last flag's value.
func countShorts(fs *pflag.FlagSet, s string, count func(*pflag.Flag) error) (int, error) {
	for j := 0; j < len(s); j++ {
		f := fs.ShorthandLookup(s[j : j+1])
		if err := count(f); err != nil {
			return 0, err
		}
		if f == nil {
			return 0, nil
		}
		if f.NoOptDefVal == "" { // takes a value: the rest, or the next argument
			if j == len(s)-1 {
				return 1, nil
			}
			return 0, nil
		}
	}
	return 0, nil
}
