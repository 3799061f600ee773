// Package stored holds what the database stores share and that is not SQL:
// reading their embedded migrations, the text form of a game's history, and
// the error for a row that does not decode. It decides nothing either.
package stored

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// Migration is one schema migration: a file NNNN_what.sql.
type Migration struct {
	Version int
	Name    string // the file's name without .sql
	SQL     string
}

// Migrations reads the files matching pattern (such as "migrations/*.sql")
// in fsys, named NNNN_what.sql, in version order; two files with one
// version, or a name without one, are an error.
func Migrations(fsys fs.FS, pattern string) ([]Migration, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version and '_'", base)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(base, ".sql"), SQL: string(body)})
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share a version", ms[i-1].Name, ms[i].Name)
		}
	}
	return ms, nil
}

// The history is kept as text, one hex digit per pit, so an UPDATE can
// append to it (|| on text) and a person can read it.
const pitDigits = "0123456789ab"

// EncodeHistory is the text of a history of pits.
func EncodeHistory(pits []byte) string {
	b := make([]byte, len(pits))
	for i, p := range pits {
		b[i] = pitDigits[p%engine.NumPits]
	}
	return string(b)
}

// DecodeHistory reads EncodeHistory's text.
func DecodeHistory(s string) ([]byte, error) {
	pits := make([]byte, len(s))
	for i := range len(s) {
		p := strings.IndexByte(pitDigits, s[i])
		if p < 0 {
			return nil, fmt.Errorf("history %q: %q is not a pit", s, s[i])
		}
		pits[i] = byte(p)
	}
	return pits, nil
}

// Undecodable reports a stored row that does not decode. Its cause is kept
// as text only: a stored value that does not parse is the server's fault,
// and must never be matched as the client's bad notation or position.
func Undecodable(what string, cause error) error {
	return fmt.Errorf("stored %s does not decode: %s", what, cause.Error())
}

// The words a database keeps for a time control's kind.
var timeKindWords = map[games.TimeKind]string{
	games.Untimed:        "",
	games.Live:           "live",
	games.Correspondence: "correspondence",
}

// TimeKindWord is the word kept for k; false for a kind it has none for.
func TimeKindWord(k games.TimeKind) (string, bool) {
	w, ok := timeKindWords[k]
	return w, ok
}

// ParseTimeKind reads TimeKindWord's word.
func ParseTimeKind(w string) (games.TimeKind, error) {
	for k, word := range timeKindWords {
		if word == w {
			return k, nil
		}
	}
	return 0, fmt.Errorf("time control kind %q", w)
}

// ErrSchemaNewer: the database records a migration this binary does not
// have, so a newer version wrote it; this one would misread its rows, or
// undo what it does not know, and refuses to run on it.
var ErrSchemaNewer = errors.New("the database's schema is newer than this binary")

// ErrSchemaBehind: the database lacks migrations this binary needs, and it
// was told not to apply them (serve --migrate=false).
var ErrSchemaBehind = errors.New("the database's schema is behind this binary")

// CheckSchema compares the versions a database records (applied) with the
// migrations this binary has (known, in version order): an applied version
// it does not know is ErrSchemaNewer, naming the newest of each; with
// needAll, a known one not applied is ErrSchemaBehind.
func CheckSchema(applied []int, known []Migration, needAll bool) error {
	latest := 0
	if len(known) > 0 {
		latest = known[len(known)-1].Version
	}
	have := make(map[int]bool, len(known))
	for _, m := range known {
		have[m.Version] = true
	}
	newest, unknown := 0, 0
	for _, v := range applied {
		newest = max(newest, v)
		if !have[v] && v > 0 {
			unknown = max(unknown, v)
		}
	}
	if unknown > 0 {
		return fmt.Errorf("%w: it is at version %d, this binary knows versions up to %d; run a binary at least as new as the one that migrated it (or restore a backup taken before)", ErrSchemaNewer, newest, latest)
	}
	if !needAll {
		return nil
	}
	var missing []string
	for _, m := range known {
		if !slices.Contains(applied, m.Version) {
			missing = append(missing, m.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: it is at version %d, this binary needs %d (missing %s); run `ayoayo migrate --db …` first, or serve with --migrate", ErrSchemaBehind, newest, latest, strings.Join(missing, ", "))
	}
	return nil
}
