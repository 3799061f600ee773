package main

import (
	"context"
	"errors"
	"flag"
)

func runLoadtest(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	return errors.New("not built yet")
}
