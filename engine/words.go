package engine

import (
	"fmt"
	"strings"
)

// words is the text of an enum: the word of each value, indexed by value.
// One table per enum serves String, MarshalText, UnmarshalText and the Parse
// functions, so the notation, the API, the stores and the logs cannot spell a
// value two ways.
type words struct {
	typ  string   // the Go type, for the String of a value with no word: "Side(7)"
	what string   // what a word names, in errors: "side", "captureSeed"
	list []string // the word of each value ("" is a word where String gives it)
	err  error    // the sentinel an unknown word, or a value with no word, wraps
}

var (
	sideWords        = words{"Side", "side", []string{"south", "north"}, ErrInvalidPosition}
	captureSeedWords = words{"CaptureSeed", "captureSeed", []string{"taken", "left"}, ErrInvalidRules}
	leftoversWords   = words{"Leftovers", "leftovers", []string{"last_mover", "side_owner"}, ErrInvalidRules}
	winnerWords      = words{"Winner", "winner", []string{"", "south", "north", "draw"}, ErrInvalidWord}
	endWords         = words{"EndReason", "end reason", []string{"", "majority", "no_moves", "repetition", "resignation", "timeout", "agreement"}, ErrInvalidWord}
	reasonWords      = words{"Reason", "illegal-move reason", []string{"", "game_over", "not_your_pit", "empty_pit", "infinite_relay", "must_feed"}, ErrInvalidWord}
)

// name returns v's word, or the type and number of a value without one.
func (w *words) name(v uint8) string {
	if int(v) < len(w.list) {
		return w.list[v]
	}
	return fmt.Sprintf("%s(%d)", w.typ, v)
}

// marshal returns v's word; a value without one is an error, so that it is
// never written where it could not be read back.
func (w *words) marshal(v uint8) ([]byte, error) {
	if int(v) < len(w.list) {
		return []byte(w.list[v]), nil
	}
	return nil, fmt.Errorf("%w: %s(%d) has no word", w.err, w.typ, v)
}

// parseWord returns the value whose word is text, exactly (no other case, no
// spaces), or an error wrapping the enum's sentinel. It takes both strings
// and byte slices so that neither Parse* nor UnmarshalText copies its input.
func parseWord[E ~uint8, T string | []byte](w *words, text T) (E, error) {
	for i, s := range w.list {
		if string(text) == s {
			return E(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %s %q, want %s", w.err, w.what, string(text), w.want())
}

// want lists the words for an error message: "south or north".
func (w *words) want() string {
	var b strings.Builder
	for i, s := range w.list {
		switch {
		case i == 0:
		case i == len(w.list)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		if s == "" {
			s = `""`
		}
		b.WriteString(s)
	}
	return b.String()
}

// Every enum is an encoding.TextMarshaler and encoding.TextUnmarshaler with
// the words its String gives: encoding/json, flag.TextVar and database
// drivers read and write them as those words. UnmarshalText leaves the value
// unchanged when the word is unknown.

// MarshalText returns "south" or "north"; another value is an error wrapping
// ErrInvalidPosition.
func (s Side) MarshalText() ([]byte, error) { return sideWords.marshal(uint8(s)) }

// UnmarshalText reads "south" or "north"; another word is an error wrapping
// ErrInvalidPosition, as for ParseSide.
func (s *Side) UnmarshalText(text []byte) error { return unmarshal(&sideWords, text, s) }

// MarshalText returns "taken" or "left"; another value is an error wrapping
// ErrInvalidRules.
func (c CaptureSeed) MarshalText() ([]byte, error) { return captureSeedWords.marshal(uint8(c)) }

// UnmarshalText reads "taken" or "left"; another word, the empty one included
// (ParseRules alone takes that for the default), is an error wrapping
// ErrInvalidRules.
func (c *CaptureSeed) UnmarshalText(text []byte) error { return unmarshal(&captureSeedWords, text, c) }

// MarshalText returns "last_mover" or "side_owner"; another value is an error
// wrapping ErrInvalidRules.
func (l Leftovers) MarshalText() ([]byte, error) { return leftoversWords.marshal(uint8(l)) }

// UnmarshalText reads "last_mover" or "side_owner"; another word, the empty
// one included, is an error wrapping ErrInvalidRules.
func (l *Leftovers) UnmarshalText(text []byte) error { return unmarshal(&leftoversWords, text, l) }

// MarshalText returns "south", "north", "draw", or "" for NoWinner; another
// value is an error wrapping ErrInvalidWord.
func (w Winner) MarshalText() ([]byte, error) { return winnerWords.marshal(uint8(w)) }

// UnmarshalText reads "south", "north", "draw", or "" as NoWinner; another
// word is an error wrapping ErrInvalidWord.
func (w *Winner) UnmarshalText(text []byte) error { return unmarshal(&winnerWords, text, w) }

// MarshalText returns "majority", "no_moves", "repetition", "resignation", "timeout",
// or "" for NotOver; another value is an error wrapping ErrInvalidWord.
func (e EndReason) MarshalText() ([]byte, error) { return endWords.marshal(uint8(e)) }

// UnmarshalText reads the words MarshalText writes, "" as NotOver; another
// word is an error wrapping ErrInvalidWord.
func (e *EndReason) UnmarshalText(text []byte) error { return unmarshal(&endWords, text, e) }

// MarshalText returns the reason's snake_case word ("game_over",
// "not_your_pit", "empty_pit", "infinite_relay", "must_feed"), or "" for
// Legal; another value is an error wrapping ErrInvalidWord.
func (r Reason) MarshalText() ([]byte, error) { return reasonWords.marshal(uint8(r)) }

// UnmarshalText reads the words MarshalText writes, "" as Legal; another word
// is an error wrapping ErrInvalidWord.
func (r *Reason) UnmarshalText(text []byte) error { return unmarshal(&reasonWords, text, r) }

// unmarshal sets *v to the value whose word is text, or leaves it and returns
// the error.
func unmarshal[E ~uint8](w *words, text []byte, v *E) error {
	x, err := parseWord[E](w, text)
	if err != nil {
		return err
	}
	*v = x
	return nil
}
