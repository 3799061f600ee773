package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ayoayo/ayoayo/api"
)

// runValidate is POST /v1/validate/batch without a server: NDJSON records
// from FILE, or standard input for -, NDJSON answers to standard output, by
// the same function the server calls. Game records in the text notation
// (docs/notation.md) are read as well: each is answered as a line is, with
// the line it begins on. Invalid records are answers: the exit
// status is 0 when every non-blank line was a record, valid or not; 1 when
// some lines were not (their answers are problems; standard error says how
// many), or when reading or writing failed.
func runValidate(_ context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	maxLine := fs.Int("max-line", api.DefaultBodyLimit, "longest line in `bytes`, as the server's --body-limit; a longer line is answered body_too_large")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one FILE, or - for standard input", errUsage)
	}
	if *maxLine < 1 {
		return fmt.Errorf("%w: --max-line must be positive", errUsage)
	}
	in := m.Stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	counts, err := validateRecords(in, m.Stdout, *maxLine)
	if err != nil {
		return err
	}
	if counts.Problems > 0 {
		return fmt.Errorf("%d of %d lines are not records: see their problems", counts.Problems, counts.Valid+counts.Invalid+counts.Problems)
	}
	return nil
}

// validateRecords is the command's work: api.ValidateLines with its output
// buffered, or api.ValidateTexts when the input is game records in the text
// notation rather than NDJSON (its first non-blank character is not {).
func validateRecords(in io.Reader, out io.Writer, maxLine int) (api.BatchCounts, error) {
	w := bufio.NewWriterSize(out, 64<<10)
	br := bufio.NewReaderSize(in, 64<<10)
	validate := api.ValidateLines
	if text, err := isText(br); err != nil {
		return api.BatchCounts{}, err
	} else if text {
		validate = api.ValidateTexts
	}
	// Hidden behind a plain io.Reader, so that ValidateLines sizes its own
	// buffer to maxLine instead of taking this one as it is.
	counts, err := validate(struct{ io.Reader }{br}, w, maxLine)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return counts, err
}

// isText reports whether br holds game records in the text notation: its
// first non-blank character is not the { that begins an NDJSON record. It
// reads nothing away.
func isText(br *bufio.Reader) (bool, error) {
	for n := 1; ; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			if n == br.Size() {
				return false, nil // a buffer of blanks: NDJSON's reader skips them as well
			}
			continue
		}
		return b[n-1] != '{', nil
	}
}
