package engine

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// decode reads text into a new E with its UnmarshalText.
func decode[E any, P interface {
	*E
	encoding.TextUnmarshaler
}](text []byte) (any, error) {
	var v E
	err := P(&v).UnmarshalText(text)
	return v, err
}

// enumValue is an enum value as the tests handle it: it has a word.
type enumValue interface {
	fmt.Stringer
	encoding.TextMarshaler
}

// TestEnumText round-trips every value of every enum through its word, and
// checks that the word is the one String gives and the existing parsers read.
func TestEnumText(t *testing.T) {
	tests := []struct {
		value  enumValue
		word   string
		decode func([]byte) (any, error)
	}{
		{South, "south", decode[Side]},
		{North, "north", decode[Side]},
		{CaptureTaken, "taken", decode[CaptureSeed]},
		{CaptureLeft, "left", decode[CaptureSeed]},
		{LeftoversLastMover, "last_mover", decode[Leftovers]},
		{LeftoversSideOwner, "side_owner", decode[Leftovers]},
		{NoWinner, "", decode[Winner]},
		{SouthWins, "south", decode[Winner]},
		{NorthWins, "north", decode[Winner]},
		{Draw, "draw", decode[Winner]},
		{NotOver, "", decode[EndReason]},
		{ByMajority, "majority", decode[EndReason]},
		{ByNoMoves, "no_moves", decode[EndReason]},
		{ByRepetition, "repetition", decode[EndReason]},
		{ByResignation, "resignation", decode[EndReason]},
		{ByTimeout, "timeout", decode[EndReason]},
		{ByAgreement, "agreement", decode[EndReason]},
		{Legal, "", decode[Reason]},
		{GameOver, "game_over", decode[Reason]},
		{NotYourPit, "not_your_pit", decode[Reason]},
		{EmptyPit, "empty_pit", decode[Reason]},
		{InfiniteRelay, "infinite_relay", decode[Reason]},
		{MustFeed, "must_feed", decode[Reason]},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%T=%q", tc.value, tc.word), func(t *testing.T) {
			got, err := tc.value.MarshalText()
			if err != nil || string(got) != tc.word {
				t.Fatalf("MarshalText() = %q, %v; want %q", got, err, tc.word)
			}
			if s := tc.value.String(); s != tc.word {
				t.Fatalf("String() = %q, MarshalText %q", s, tc.word)
			}
			back, err := tc.decode([]byte(tc.word))
			if err != nil || back != any(tc.value) {
				t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", tc.word, back, err, tc.value)
			}
		})
	}
	// The existing parsers read the same words.
	for _, s := range []Side{South, North} {
		if got, err := ParseSide(s.String()); err != nil || got != s {
			t.Errorf("ParseSide(%q) = %v, %v", s.String(), got, err)
		}
	}
	for _, r := range []Rules{{}, {CaptureSeed: CaptureLeft}, {Leftovers: LeftoversSideOwner}, {CaptureSeed: CaptureLeft, Leftovers: LeftoversSideOwner}} {
		if got, err := ParseRules(r.CaptureSeed.String(), r.Leftovers.String()); err != nil || got != r {
			t.Errorf("ParseRules(%s, %s) = %+v, %v", r.CaptureSeed, r.Leftovers, got, err)
		}
	}
	if got, err := ParseRules("", ""); err != nil || got != (Rules{}) {
		t.Errorf(`ParseRules("", "") = %+v, %v; want the default rules`, got, err)
	}
}

// TestEnumTextErrors: unknown words and values without a word are errors
// wrapping the sentinel the API maps, and a failed UnmarshalText changes
// nothing.
func TestEnumTextErrors(t *testing.T) {
	words := []struct {
		name   string
		word   string
		decode func([]byte) (any, error)
		want   error
	}{
		{"side west", "west", decode[Side], ErrInvalidPosition},
		{"side empty", "", decode[Side], ErrInvalidPosition},
		{"side capitalised", "South", decode[Side], ErrInvalidPosition},
		{"side with a space", "south ", decode[Side], ErrInvalidPosition},
		{"captureSeed kept", "kept", decode[CaptureSeed], ErrInvalidRules},
		{"captureSeed empty: only ParseRules defaults it", "", decode[CaptureSeed], ErrInvalidRules},
		{"leftovers in camel case", "lastMover", decode[Leftovers], ErrInvalidRules},
		{"leftovers empty", "", decode[Leftovers], ErrInvalidRules},
		{"winner tie", "tie", decode[Winner], ErrInvalidWord},
		{"winner upper case", "DRAW", decode[Winner], ErrInvalidWord},
		{"end reason abort: an aborted game has no result", "abort", decode[EndReason], ErrInvalidWord},
		{"end reason in camel case", "noMoves", decode[EndReason], ErrInvalidWord},
		{"reason legal is the empty word", "legal", decode[Reason], ErrInvalidWord},
		{"reason with a NUL", "game_over\x00", decode[Reason], ErrInvalidWord},
	}
	for _, tc := range words {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.decode([]byte(tc.word))
			if !errors.Is(err, tc.want) {
				t.Fatalf("UnmarshalText(%q) = %v, %v; want an error wrapping %v", tc.word, got, err, tc.want)
			}
		})
	}
	values := []struct {
		value enumValue
		want  error
	}{
		{Side(2), ErrInvalidPosition},
		{CaptureSeed(2), ErrInvalidRules},
		{Leftovers(255), ErrInvalidRules},
		{Winner(4), ErrInvalidWord},
		{EndReason(7), ErrInvalidWord},
		{Reason(6), ErrInvalidWord},
	}
	for _, tc := range values {
		t.Run(tc.value.String(), func(t *testing.T) {
			if b, err := tc.value.MarshalText(); !errors.Is(err, tc.want) || b != nil {
				t.Fatalf("MarshalText() = %q, %v; want an error wrapping %v", b, err, tc.want)
			}
		})
	}
	s := North
	if err := s.UnmarshalText([]byte("west")); err == nil || s != North {
		t.Fatalf("a failed UnmarshalText left %v, %v; want North unchanged", s, err)
	}
	if _, err := ParseSide("west"); !errors.Is(err, ErrInvalidPosition) {
		t.Fatalf("ParseSide(west): %v, want ErrInvalidPosition", err)
	}
	if _, err := ParseRules("taken", "nobody"); !errors.Is(err, ErrInvalidRules) {
		t.Fatalf("ParseRules(taken, nobody): %v, want ErrInvalidRules", err)
	}
}

// TestEnumJSON: encoding/json writes and reads the enums as their words.
func TestEnumJSON(t *testing.T) {
	type record struct {
		Side        Side
		CaptureSeed CaptureSeed
		Leftovers   Leftovers
		Winner      Winner
		EndReason   EndReason
		Reason      Reason
	}
	in := record{North, CaptureLeft, LeftoversSideOwner, Draw, ByRepetition, MustFeed}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"Side":"north","CaptureSeed":"left","Leftovers":"side_owner","Winner":"draw","EndReason":"repetition","Reason":"must_feed"}`
	if string(b) != want {
		t.Fatalf("json %s, want %s", b, want)
	}
	var out record
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Fatalf("read back %+v, %v; want %+v", out, err, in)
	}
	if err := json.Unmarshal([]byte(`{"Winner":"tie"}`), &out); !errors.Is(err, ErrInvalidWord) {
		t.Fatalf("winner tie: %v, want ErrInvalidWord", err)
	}
}

// TestParseWordsAllocateNothing: the API parses a side and the rules on every
// request.
func TestParseWordsAllocateNothing(t *testing.T) {
	text := []byte("resignation")
	var e EndReason
	n := testing.AllocsPerRun(100, func() {
		if _, err := ParseSide("north"); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseRules("left", "side_owner"); err != nil {
			t.Fatal(err)
		}
		if err := e.UnmarshalText(text); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations a run, want none", n)
	}
}

// FuzzEnumText: for any text and any value of every enum, a word that reads
// writes back as itself, an unknown one is an error wrapping the enum's
// sentinel and changes nothing, and a value either writes a word that reads
// back as the value or is an error wrapping the sentinel.
func FuzzEnumText(f *testing.F) {
	for _, s := range []string{"", "south", "north", "draw", "taken", "left", "last_mover", "side_owner",
		"majority", "no_moves", "repetition", "resignation", "game_over", "must_feed", "South", "drawn"} {
		f.Add(s, uint8(0))
	}
	f.Add("x", uint8(3))
	f.Add("y", uint8(255))
	checks := []func(t *testing.T, text string, v uint8){
		fuzzEnum[Side](ErrInvalidPosition),
		fuzzEnum[CaptureSeed](ErrInvalidRules),
		fuzzEnum[Leftovers](ErrInvalidRules),
		fuzzEnum[Winner](ErrInvalidWord),
		fuzzEnum[EndReason](ErrInvalidWord),
		fuzzEnum[Reason](ErrInvalidWord),
	}
	f.Fuzz(func(t *testing.T, text string, v uint8) {
		for _, check := range checks {
			check(t, text, v)
		}
	})
}

// fuzzEnum returns FuzzEnumText's check of one enum E, whose errors wrap
// sentinel.
func fuzzEnum[E interface {
	~uint8
	enumValue
}, P interface {
	*E
	encoding.TextUnmarshaler
}](sentinel error) func(t *testing.T, text string, v uint8) {
	return func(t *testing.T, text string, v uint8) {
		t.Helper()
		marker := E(0xAB) // no enum has a value this large
		got := marker
		if err := P(&got).UnmarshalText([]byte(text)); err != nil {
			if !errors.Is(err, sentinel) || got != marker {
				t.Fatalf("%T: UnmarshalText(%q) = %v, left %v; want an error wrapping %v and nothing changed", got, text, err, uint8(got), sentinel)
			}
		} else if b, err := got.MarshalText(); err != nil || string(b) != text || got.String() != text {
			t.Fatalf("%T: %q reads as %d, which writes %q (%v), String %q", got, text, uint8(got), b, err, got.String())
		}

		value := E(v)
		b, err := value.MarshalText()
		if err != nil {
			if !errors.Is(err, sentinel) || b != nil {
				t.Fatalf("%T(%d): MarshalText = %q, %v; want an error wrapping %v", value, v, b, err, sentinel)
			}
			return
		}
		var back E
		if err := P(&back).UnmarshalText(b); err != nil || back != value || string(b) != value.String() {
			t.Fatalf("%T(%d) writes %q, String %q, which reads as %d (%v)", value, v, b, value.String(), uint8(back), err)
		}
	}
}
