package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
)

// envPrefix starts the name of every environment variable a flag reads.
const envPrefix = "AYOAYO_"

// envName is the environment variable that flag name reads: prefix, then
// the name in upper case with _ for - (--cors-origins: AYOAYO_CORS_ORIGINS).
// Deriving it, rather than writing it beside each flag, is what keeps a
// flag and its variable from drifting apart.
func envName(prefix, name string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// envList is a flag whose variable holds a list (table files: separated by
// commas or colons) rather than one value; setting it from the environment
// replaces the list and leaves the flag's first Set free to replace it again.
type envList interface {
	SetList(string)
}

// bindEnv gives the flags of fs named in names (every flag of fs when there
// are none) the values of their environment variables (see envName), where
// set; the command line, parsed after, overrides them. Every value that does
// not parse is reported, as a usage mistake.
func (m *Main) bindEnv(fs *flag.FlagSet, prefix string, names ...string) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if len(names) > 0 && !slices.Contains(names, f.Name) {
			return
		}
		name := envName(prefix, f.Name)
		v := m.Getenv(name)
		if v == "" {
			return
		}
		if l, ok := f.Value.(envList); ok {
			l.SetList(v)
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q %s", name, v, notA(f.Value, err)))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return nil
}

// notA says what a variable's value should have been, in the words of the
// flag's type.
func notA(v flag.Value, err error) string {
	g, ok := v.(flag.Getter)
	if !ok {
		return "is refused: " + err.Error()
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "is not a whole number"
	case bool:
		return "is neither true nor false"
	case time.Duration:
		return "is not a duration such as 15s"
	}
	return "is refused: " + err.Error()
}

// parse binds the environment to the flags named (every flag when none
// are; see bindEnv), then parses args over it. A mistake on the command
// line (or --help) is reported before one in the environment.
func (m *Main) parse(fs *flag.FlagSet, args []string, prefix string, names ...string) error {
	envErr := m.bindEnv(fs, prefix, names...)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return envErr
}
