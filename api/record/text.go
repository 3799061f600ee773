package record

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ayoayo/ayoayo/engine"
)

// Limits of what Parse reads, so that no text costs more than its length.
const (
	MaxMoves    = 2000 // plies of one record
	maxTagValue = 256  // bytes of a tag value
	maxComment  = 2000 // bytes of a move's comments, less the clock commands
	maxCommands = 64   // bytes of a comment's clock commands, at most
	lineWidth   = 80   // String's movetext lines, at most, unless one token is longer
)

// String writes r in the export form: each tag on its line, a blank line,
// the movetext wrapped at 80 columns and ended by the Result tag's value, a
// newline.
func (r *Record) String() string {
	var sb strings.Builder
	r.write(&sb)
	return sb.String()
}

func (r *Record) write(sb *strings.Builder) {
	for _, t := range r.Tags {
		sb.WriteString("[" + t.Name + " " + quote(t.Value) + "]\n")
	}
	if len(r.Tags) > 0 {
		sb.WriteByte('\n')
	}
	first := engine.South
	if p, err := r.Start(); err == nil {
		first = p.ToMove
	}
	col := 0
	put := func(tok string) {
		switch {
		case col == 0:
		case col+1+len(tok) > lineWidth:
			sb.WriteByte('\n')
			col = 0
		default:
			sb.WriteByte(' ')
			col++
		}
		sb.WriteString(tok)
		col += len(tok)
	}
	numbered := false // the last token was a South move, so a North move needs no number
	for i, m := range r.Moves {
		n, north := moveNumber(first, i)
		if !north {
			put(strconv.Itoa(n) + ".")
		} else if !numbered {
			put(strconv.Itoa(n) + "...")
		}
		tok := string(PitLetter(m.Pit))
		if m.Captured > 0 {
			tok += "x" + strconv.Itoa(m.Captured)
		}
		put(tok)
		numbered = !north
		if c := m.comment(); c != "" {
			// A comment wraps at its spaces like the rest.
			for j, w := range strings.Fields(c) {
				if j == 0 {
					w = "{" + w
				}
				put(w)
			}
			sb.WriteByte('}')
			col++
			numbered = false
		}
	}
	if res, ok := r.Get(TagResult); ok {
		put(res)
	}
	if col > 0 {
		sb.WriteByte('\n')
	}
}

// comment is the move's comment as written: commands, then the free text.
func (m *Move) comment() string {
	var parts []string
	if m.HasClock {
		parts = append(parts, "[%clk "+clock(m.Clock)+"]")
	}
	if m.HasElapsed {
		parts = append(parts, "[%emt "+clock(m.Elapsed)+"]")
	}
	if m.Comment != "" {
		parts = append(parts, m.Comment)
	}
	return strings.Join(parts, " ")
}

// quote writes a tag value in double quotes, with \" and \\ as PGN has them.
func quote(v string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r < ' ' || r == 0x7f:
			sb.WriteByte(' ') // a tag value is one line
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// clock writes a duration as H:MM:SS, with up to three decimals of a second
// when it has a fraction (milliseconds; less is dropped).
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	ms := int64(d / time.Millisecond)
	s := fmt.Sprintf("%d:%02d:%02d", ms/3600000, ms/60000%60, ms/1000%60)
	if f := ms % 1000; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", f), "0")
	}
	return s
}

// parseClock reads what clock writes (and two-digit hours and minutes
// written as one).
func parseClock(s string) (time.Duration, error) {
	bad := fmt.Errorf("clock %q: want H:MM:SS or H:MM:SS.fff", s)
	whole, frac, hasFrac := strings.Cut(s, ".")
	parts := strings.Split(whole, ":")
	if len(parts) != 3 || len(parts[1]) != 2 || len(parts[2]) != 2 || len(parts[0]) == 0 || len(parts[0]) > 6 {
		return 0, bad
	}
	var v [3]int
	for i, p := range parts {
		for j := range len(p) {
			if p[j] < '0' || p[j] > '9' {
				return 0, bad
			}
		}
		v[i], _ = strconv.Atoi(p)
	}
	if v[1] > 59 || v[2] > 59 {
		return 0, bad
	}
	d := time.Duration(v[0])*time.Hour + time.Duration(v[1])*time.Minute + time.Duration(v[2])*time.Second
	if hasFrac {
		if len(frac) == 0 || len(frac) > 3 {
			return 0, bad
		}
		for j := range len(frac) {
			if frac[j] < '0' || frac[j] > '9' {
				return 0, bad
			}
		}
		f, _ := strconv.Atoi(frac + strings.Repeat("0", 3-len(frac)))
		d += time.Duration(f) * time.Millisecond
	}
	return d, nil
}

// SyntaxError is where a text stops being a record: the line and, in the
// movetext, the move.
type SyntaxError struct {
	Line int    // 1-based, within the text given to Parse
	Move string // the move's number as the notation writes it ("7.", "7..."), "" outside the movetext
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Move != "" {
		return fmt.Sprintf("line %d, move %s: %s", e.Line, e.Move, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Unwrap makes the error ErrSyntax to errors.Is and errors.As.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Parse reads one record. Tags come first, one to a line; then the
// movetext, whose move numbers are optional but must be right when given,
// and whose result, when given, must be the Result tag's (a record without
// a Result tag takes it). See docs/notation.md.
func Parse(text string) (*Record, error) {
	p := parser{text: text, line: 1}
	rec, err := p.record()
	if err != nil {
		return nil, err
	}
	return rec, nil
}

type parser struct {
	text string
	i    int
	line int
}

func (p *parser) fail(move string, format string, args ...any) error {
	return &SyntaxError{Line: p.line, Move: move, Msg: fmt.Sprintf(format, args...)}
}

// space skips white space, counting lines.
func (p *parser) space() {
	for p.i < len(p.text) {
		switch p.text[p.i] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		p.i++
	}
}

func (p *parser) record() (*Record, error) {
	if !utf8.ValidString(p.text) {
		return nil, p.fail("", "the text is not valid UTF-8")
	}
	rec := &Record{}
	seen := map[string]bool{}
	for p.space(); p.i < len(p.text) && p.text[p.i] == '['; p.space() {
		t, err := p.tag()
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, p.fail("", "tag %s given twice", t.Name)
		}
		seen[t.Name] = true
		if err := checkTag(t); err != nil {
			return nil, p.fail("", "tag %s: %v", t.Name, err)
		}
		rec.Tags = append(rec.Tags, t)
	}
	start, err := rec.Start()
	if err != nil {
		return nil, p.fail("", "%v", err)
	}
	if err := p.movetext(rec, start.ToMove); err != nil {
		return nil, err
	}
	return rec, nil
}

// tag reads [Name "Value"] on one line.
func (p *parser) tag() (Tag, error) {
	end := strings.IndexByte(p.text[p.i:], '\n')
	if end < 0 {
		end = len(p.text) - p.i
	}
	s := strings.TrimRight(p.text[p.i:p.i+end], " \t\r")
	p.i += end
	if !strings.HasSuffix(s, "]") {
		return Tag{}, p.fail("", "a tag ends with ] on its line")
	}
	s = s[1 : len(s)-1]
	name, rest, _ := strings.Cut(s, " ")
	if name == "" || len(name) > 32 || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}) >= 0 {
		return Tag{}, p.fail("", "tag name %q: want letters, digits and _", name)
	}
	rest = strings.TrimLeft(rest, " ")
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return Tag{}, p.fail("", "tag %s: the value goes in double quotes", name)
	}
	var v strings.Builder
	body := rest[1 : len(rest)-1]
	for j := 0; j < len(body); j++ {
		c := body[j]
		switch {
		case c == '\\':
			if j+1 == len(body) || (body[j+1] != '"' && body[j+1] != '\\') {
				return Tag{}, p.fail("", "tag %s: a backslash goes before \" or \\ only", name)
			}
			j++
			v.WriteByte(body[j])
		case c == '"':
			return Tag{}, p.fail("", "tag %s: a quote inside the value is written \\\"", name)
		case c < ' ' || c == 0x7f:
			return Tag{}, p.fail("", "tag %s: control character %q in the value", name, c)
		default:
			v.WriteByte(c)
		}
	}
	if v.Len() > maxTagValue {
		return Tag{}, p.fail("", "tag %s: the value is longer than %d bytes", name, maxTagValue)
	}
	return Tag{Name: name, Value: v.String()}, nil
}

// checkTag checks the value of a tag the notation gives a meaning to.
func checkTag(t Tag) error {
	switch t.Name {
	case TagStart:
		_, err := engine.Parse(t.Value)
		return err
	case TagRules:
		_, err := ParseRules(t.Value)
		return err
	case TagResult:
		_, _, _, err := parseResult(t.Value)
		return err
	case TagTermination:
		switch t.Value {
		case TermNormal, TermTimeout, TermResignation, TermAgreement, TermAbandoned:
			return nil
		}
		return fmt.Errorf("%q: want normal, timeout, resignation, agreement or abandoned", t.Value)
	case TagWinner:
		switch t.Value {
		case "south", "north", "draw":
			return nil
		}
		return fmt.Errorf("%q: want south, north or draw", t.Value)
	case TagTimeControl:
		return checkTimeControl(t.Value)
	case TagSouthRating, TagNorthRating:
		if _, err := decimal(t.Value); err != nil && t.Value != "?" {
			return fmt.Errorf("%q: want a whole number or ?", t.Value)
		}
	}
	return nil
}

// movetext reads the moves, their comments and the result.
func (p *parser) movetext(rec *Record, first engine.Side) error {
	result := ""
	for p.space(); p.i < len(p.text); p.space() {
		ply := len(rec.Moves)
		name := MoveName(first, ply)
		if result != "" {
			return p.fail("", "text after the result %s", result)
		}
		c := p.text[p.i]
		switch {
		case c == '{':
			if ply == 0 {
				return p.fail(name, "a comment follows a move: none comes before the first")
			}
			text, err := p.comment(MoveName(first, ply-1))
			if err != nil {
				return err
			}
			if err := addComment(&rec.Moves[ply-1], text); err != nil {
				return p.fail(MoveName(first, ply-1), "%v", err)
			}
			continue
		case c == '[':
			return p.fail(name, "a tag after the moves: a record's tags come first")
		}
		j := p.i
		for j < len(p.text) && !strings.ContainsRune(" \t\r\n{", rune(p.text[j])) {
			j++
		}
		tok := p.text[p.i:j]
		p.i = j
		if tok == Unfinished || strings.Contains(tok, "-") {
			if _, _, _, err := parseResult(tok); err != nil {
				return p.fail(name, "result %v", err)
			}
			result = tok
			continue
		}
		// A move number, maybe with the move right after it.
		if tok[0] >= '0' && tok[0] <= '9' {
			k := strings.IndexByte(tok, '.')
			if k < 0 {
				return p.fail(name, "%q is neither a move number (such as 12. or 12...) nor a result", tok)
			}
			n, err := decimal(tok[:k])
			want, _ := moveNumber(first, ply)
			if err != nil || n != want {
				return p.fail(name, "move number %q out of turn: the next move is %s", tok[:k+1], name)
			}
			dots := k
			for dots < len(tok) && tok[dots] == '.' {
				dots++
			}
			if d := dots - k; d != 1 && d != 3 {
				return p.fail(name, "a move number ends with . or ..., not %q", tok[k:dots])
			}
			if tok = tok[dots:]; tok == "" {
				continue
			}
		}
		if ply >= MaxMoves {
			return p.fail(name, "more than %d moves", MaxMoves)
		}
		m, err := parseMove(tok)
		if err != nil {
			return p.fail(name, "%v", err)
		}
		rec.Moves = append(rec.Moves, m)
	}
	if result != "" {
		if v, ok := rec.Get(TagResult); !ok {
			rec.Tags = append(rec.Tags, Tag{TagResult, result})
		} else if v != result {
			return p.fail("", "the movetext ends with %s, the Result tag says %s", result, v)
		}
	}
	return nil
}

// parseMove reads a pit letter and, after x, the seeds captured.
func parseMove(tok string) (Move, error) {
	pit := pitOf(tok[0])
	if pit < 0 {
		return Move{}, fmt.Errorf("%q: unknown pit letter %q: South plays a-f, North A-F", tok, tok[0])
	}
	m := Move{Pit: pit}
	if rest := tok[1:]; rest != "" {
		n, err := decimal(strings.TrimPrefix(rest, "x"))
		if rest[0] != 'x' || err != nil || n < 1 || n > engine.SeedCount {
			return Move{}, fmt.Errorf("%q: after the pit letter only x and the seeds captured (1 to 48), such as cx3", tok)
		}
		m.Captured = n
	}
	return m, nil
}

// comment reads {...}, returning its text with spaces collapsed.
func (p *parser) comment(move string) (string, error) {
	end := strings.IndexByte(p.text[p.i:], '}')
	if end < 0 {
		return "", p.fail(move, "a comment opened with { has no }")
	}
	body := p.text[p.i+1 : p.i+end]
	p.line += strings.Count(body, "\n")
	p.i += end + 1
	if len(body) > maxComment+maxCommands {
		return "", p.fail(move, "a comment longer than %d bytes", maxComment+maxCommands)
	}
	if strings.ContainsRune(body, '{') {
		return "", p.fail(move, "a comment does not nest {")
	}
	return strings.Join(strings.Fields(body), " "), nil
}

// addComment takes the clock commands out of a comment's text and adds the
// rest to the move's comment.
func addComment(m *Move, text string) error {
	var rest []string
	for text != "" {
		k := strings.Index(text, "[%")
		if k < 0 {
			rest = append(rest, text)
			break
		}
		if k > 0 {
			rest = append(rest, strings.TrimSpace(text[:k]))
		}
		end := strings.IndexByte(text[k:], ']')
		if end < 0 {
			return fmt.Errorf("a command [%%... has no ]")
		}
		cmd := text[k+2 : k+end]
		text = strings.TrimSpace(text[k+end+1:])
		name, arg, _ := strings.Cut(cmd, " ")
		switch name {
		case "clk", "emt":
			d, err := parseClock(arg)
			if err != nil {
				return err
			}
			if name == "clk" {
				if m.HasClock {
					return fmt.Errorf("two [%%clk] for one move")
				}
				m.Clock, m.HasClock = d, true
			} else {
				if m.HasElapsed {
					return fmt.Errorf("two [%%emt] for one move")
				}
				m.Elapsed, m.HasElapsed = d, true
			}
		default:
			// Another program's command: kept as text.
			rest = append(rest, "[%"+cmd+"]")
		}
	}
	s := strings.Join(strings.Fields(strings.Join(rest, " ")), " ")
	if m.Comment != "" && s != "" {
		s = m.Comment + " " + s
	} else if s == "" {
		s = m.Comment
	}
	if len(s) > maxComment {
		// Checked as it grows, so that many comments on one move cost
		// no more than their length.
		return fmt.Errorf("the comments of one move are longer than %d bytes, their clock commands aside", maxComment)
	}
	m.Comment = s
	return nil
}
