package api

// Bulk validation: POST /v1/validate/batch and `ayoayo validate` check
// NDJSON, one ValidateRequest per line, each line exactly as /v1/validate
// checks a body (the same decoder, the same schema, the same replay), and
// answer NDJSON, one line per non-blank input line, in input order.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/oapi-codegen/runtime"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
)

// The limits of a batch request; each line has the limit of a single body
// (Options.BodyLimit). The OpenAPI document states the same numbers.
const (
	DefaultBatchBodyLimit = 16 << 20 // bytes of a /v1/validate/batch body
	DefaultBatchMaxLines  = 10000    // lines of a /v1/validate/batch body, blank ones included
)

// MIMEApplicationNDJSON is the media type of a batch and of its answer.
const MIMEApplicationNDJSON = "application/x-ndjson"

const (
	batchPath      = "/v1/validate/batch"
	batchOperation = "ValidateRecordsBatch"
)

// batchAnswer is the answer line for a record (ValidateBatchAnswer in the
// document): its line number, then what /v1/validate would answer.
type batchAnswer struct {
	Line int `json:"line"`
	oapi.ValidateAnswer
}

// batchProblem is the answer line for a line that is not a record
// (ValidateBatchProblem): the problem a single request would get, less
// the members that belong to the whole request.
type batchProblem struct {
	Line    int             `json:"line"`
	Problem problem.Problem `json:"problem"`
}

// BatchCounts counts the answer lines of a batch by kind.
type BatchCounts struct {
	Valid    int // records whose every move is legal
	Invalid  int // records with an illegal move
	Problems int // lines that are not records: problem lines
}

// recordSchema is the ValidateRequest schema of the embedded document, the
// one the validator checks a /v1/validate body against.
var recordSchema = sync.OnceValues(func() (*openapi3.Schema, error) {
	spec, err := oapi.GetSwagger()
	if err != nil {
		return nil, fmt.Errorf("load the embedded OpenAPI document: %w", err)
	}
	ref := spec.Components.Schemas["ValidateRequest"]
	if ref == nil || ref.Value == nil {
		return nil, errors.New("the embedded OpenAPI document has no ValidateRequest schema")
	}
	return ref.Value, nil
})

// typedRecord is a ValidateRequest line as the typed decoder reads it:
// the moves as numbers, and start and rules, rarer and small, as their
// JSON text, for the schema to check as the validator does.
type typedRecord struct {
	Start jsontext.Value `json:"start"`
	Rules jsontext.Value `json:"rules"`
	Moves []int          `json:"moves"`
}

// typedOptions make the typed decoder refuse what it cannot vouch for: a
// member the record does not have (the schema's additionalProperties:
// false). It refuses duplicate members, invalid UTF-8, a number that is
// not an integer literal and trailing data as well, by default.
var typedOptions = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true))

// lineChecker is checkLine with a faster path for the common line. The
// schema path (a generic decode, kin-openapi's check of every value, a
// bind that encodes the value and decodes it again) cost more than twice
// the replay of a record's moves, and most of a line's time. The typed
// path decodes the line straight into its record and asks the same schema
// only what it must: start and rules when present, each distinct pit
// number once a batch, and the moves array's own limits (its length). It
// vouches for a line only when it can: anything it does not take
// (malformed, of another shape, a pit it has not seen accepted) goes the
// schema path, so that every line is answered as /v1/validate answers its
// body, error details included.
type lineChecker struct {
	schema       *openapi3.Schema // ValidateRequest
	start, rules *openapi3.Schema // its properties
	movesArray   *openapi3.Schema // its moves property without items: the array's own limits
	pit          *openapi3.Schema // a move
	pits         [16]int8         // the schema's verdict on pit number i: 0 not asked yet, 1 accepted, -1 refused
	nils         []any            // the stand-in for a moves array, for movesArray
	moves        []int            // the moves of the line being checked, its array reused line after line
	replay       replayer         // the replay of the lines the typed path takes
	schemaOnly   bool             // no typed path: every line the schema's
}

func newLineChecker(schema *openapi3.Schema) *lineChecker {
	c := &lineChecker{schema: schema}
	prop := func(name string) *openapi3.Schema {
		if ref := schema.Properties[name]; ref != nil {
			return ref.Value
		}
		return nil
	}
	c.start, c.rules = prop("start"), prop("rules")
	if moves := prop("moves"); moves != nil && moves.Items != nil && moves.Items.Value != nil {
		array := *moves
		array.Items = nil
		c.movesArray, c.pit = &array, moves.Items.Value
	}
	return c
}

// check answers one line: the typed path when it vouches for the line,
// else the schema path. The request's moves are only read by the replay,
// and its answer keeps none of them: the next line reuses their array.
func (c *lineChecker) check(line []byte) (oapi.ValidateAnswer, error) {
	if req, ok := c.typed(line); ok {
		return c.replay.validate(req)
	}
	return checkLine(c.schema, line)
}

// typed is the line's request when the typed path can vouch that the
// schema path would read the same request from it without an error.
func (c *lineChecker) typed(line []byte) (oapi.ValidateRequest, bool) {
	// Decoded into the array of the line before: the decoder appends to
	// it from length 0. No moves, then, is the array left as it was (moves
	// missing), nil (null) or an empty array: the schema path tells which.
	rec := typedRecord{Moves: c.moves[:0]}
	if c.schemaOnly || c.start == nil || c.rules == nil || c.movesArray == nil ||
		jsonv2.Unmarshal(line, &rec, typedOptions) != nil || len(rec.Moves) == 0 {
		return oapi.ValidateRequest{}, false
	}
	c.moves = rec.Moves
	for _, pit := range rec.Moves {
		if !c.pitAccepted(pit) {
			return oapi.ValidateRequest{}, false
		}
	}
	for len(c.nils) < len(rec.Moves) {
		c.nils = append(c.nils, nil)
	}
	if c.movesArray.VisitJSON(c.nils[:len(rec.Moves)], openapi3.VisitAsRequest()) != nil {
		return oapi.ValidateRequest{}, false
	}
	req := oapi.ValidateRequest{Moves: rec.Moves}
	if rec.Start != nil {
		req.Start = new(oapi.Position)
		if !bindChecked(c.start, rec.Start, req.Start) {
			return oapi.ValidateRequest{}, false
		}
	}
	if rec.Rules != nil {
		req.Rules = new(oapi.Rules)
		if !bindChecked(c.rules, rec.Rules, req.Rules) {
			return oapi.ValidateRequest{}, false
		}
	}
	return req, true
}

// pitAccepted reports whether the schema accepts pit as a move, asking it
// once a batch for each of the first few numbers; a larger one is not
// vouched for.
func (c *lineChecker) pitAccepted(pit int) bool {
	if pit < 0 || pit >= len(c.pits) {
		return false
	}
	if c.pits[pit] == 0 {
		c.pits[pit] = -1
		if c.pit.VisitJSON(json.Number(strconv.Itoa(pit)), openapi3.VisitAsRequest()) == nil {
			c.pits[pit] = 1
		}
	}
	return c.pits[pit] == 1
}

// bindChecked reads a member's JSON text as the schema path reads the
// whole line (the same decoder, the schema's check, the same binding) into
// dst, and reports whether it went without an error.
func bindChecked(schema *openapi3.Schema, text jsontext.Value, dst any) bool {
	v, err := jsonBodyDecoder(bytes.NewReader(text), nil, nil, nil)
	return err == nil && schema.VisitJSON(v, openapi3.VisitAsRequest()) == nil && runtime.BindJSONValue(v, dst) == nil
}

// ValidateLines reads NDJSON records from r, one ValidateRequest per line,
// and writes to w one answer line per non-blank line, in order, as it goes:
// a ValidateBatchAnswer for a record, valid or not, a ValidateBatchProblem
// for a line that is not one (not JSON, not of the schema, longer than
// maxLine bytes, a start position or rules the engine refuses). Line
// numbers count from 1, blank lines included. It stops at the end of r or
// at the first error reading r or writing w, which it returns.
func ValidateLines(r io.Reader, w io.Writer, maxLine int) (BatchCounts, error) {
	return validateLines(r, w, maxLine, true)
}

// validateLines is ValidateLines; without typed, every line goes the schema
// path, as every line did before the typed path (for its benchmark).
func validateLines(r io.Reader, w io.Writer, maxLine int, typed bool) (BatchCounts, error) {
	var counts BatchCounts
	schema, err := recordSchema()
	if err != nil {
		return counts, err
	}
	// A line of maxLine bytes and its newline fit the buffer; ReadSlice
	// returns a longer one in pieces, each bufio.ErrBufferFull.
	br := bufio.NewReaderSize(r, maxLine+1)
	enc := json.NewEncoder(w)
	checker := newLineChecker(schema)
	checker.schemaOnly = !typed
	for n := 1; ; n++ {
		line, rerr := br.ReadSlice('\n')
		long := false
		for errors.Is(rerr, bufio.ErrBufferFull) {
			long = true
			line, rerr = br.ReadSlice('\n')
		}
		if rerr != nil && rerr != io.EOF {
			return counts, rerr
		}
		var answer any
		switch {
		case long:
			counts.Problems++
			answer = lineProblem(n, newError(httpx.ErrBodyTooLarge, "the line is longer than %d bytes", maxLine))
		case len(bytes.TrimLeft(line, " \t\r\n")) == 0:
			// Blank: no answer.
		default:
			a, err := checker.check(line)
			switch {
			case err != nil:
				counts.Problems++
				answer = lineProblem(n, err)
			case a.Valid:
				counts.Valid++
				answer = batchAnswer{Line: n, ValidateAnswer: a}
			default:
				counts.Invalid++
				answer = batchAnswer{Line: n, ValidateAnswer: a}
			}
		}
		if answer != nil {
			if err := enc.Encode(answer); err != nil {
				return counts, err
			}
		}
		if rerr == io.EOF {
			return counts, nil
		}
	}
}

// checkLine is /v1/validate for one line: kin-openapi's decoding and
// schema check as the validator does them, the generated code's binding of
// the checked value, and the replay.
func checkLine(schema *openapi3.Schema, line []byte) (oapi.ValidateAnswer, error) {
	v, err := jsonBodyDecoder(bytes.NewReader(line), nil, nil, nil)
	if err != nil {
		return oapi.ValidateAnswer{}, bodyError(err)
	}
	if err := schema.VisitJSON(v, openapi3.VisitAsRequest()); err != nil {
		if berr := bodyError(err); berr != nil {
			return oapi.ValidateAnswer{}, berr
		}
		return oapi.ValidateAnswer{}, newError(ErrInvalidRequest, "request body: %v", err)
	}
	var req oapi.ValidateRequest
	if err := runtime.BindJSONValue(v, &req); err != nil {
		return oapi.ValidateAnswer{}, newError(ErrInvalidRequest, "request body: %v", err)
	}
	return validateRecord(req)
}

// bodyText is a body the document declares as a string: the value the
// validator read and kept, or else the body read here.
func bodyText(r io.Reader) (string, error) {
	if vb, ok := r.(interface{ ValidatedValue() any }); ok {
		body, _ := vb.ValidatedValue().(string)
		return body, nil
	}
	if r == nil {
		return "", nil
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return "", newError(ErrInvalidRequest, "reading the request body: %v", err)
	}
	return string(data), nil
}

func lineProblem(n int, err error) batchProblem {
	p, _ := problemOf(err)
	return batchProblem{Line: n, Problem: p}
}

// ValidateRecordsBatch checks the lines of the body, which the body limit
// has read in full and the validator kept, and streams the answers through
// the generated NDJSON response, which flushes what it reads: the answers
// are written to it in pieces of a few KiB. A body of the text notation's
// media type is read as records one after another (ValidateTexts), NDJSON
// as lines (ValidateLines); requireBatch has refused any other type. The
// generated request carries the body's Content-Type because the server is
// generated from one body of any type (see api/oapi/server-overlay.yaml).
func (s *Server) ValidateRecordsBatch(_ context.Context, req oapi.ValidateRecordsBatchRequestObject) (oapi.ValidateRecordsBatchResponseObject, error) {
	validate := ValidateLines
	if mt, _, _ := strings.Cut(req.ContentType, ";"); strings.EqualFold(strings.TrimSpace(mt), record.MediaType) {
		validate = ValidateTexts
	}
	body, err := bodyText(req.Body)
	if err != nil {
		return nil, err
	}
	lines := strings.Count(body, "\n")
	if !strings.HasSuffix(body, "\n") {
		lines++ // the last line has no newline
	}
	if lines > s.opts.BatchMaxLines {
		return nil, newError(ErrTooManyLines, "the request body has %d lines, more than %d", lines, s.opts.BatchMaxLines)
	}
	pr, pw := io.Pipe()
	go func() {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = newError(ErrInternal, "panic: %v", r)
			}
			pw.CloseWithError(err)
		}()
		bw := bufio.NewWriterSize(pw, 4<<10)
		if _, err = validate(strings.NewReader(body), bw, int(s.opts.BodyLimit)); err == nil {
			err = bw.Flush()
		}
	}()
	return oapi.ValidateRecordsBatch200ApplicationxNdjsonResponse{Body: pr}, nil
}

// ValidateTexts is ValidateLines for game records in the text notation
// (docs/notation.md), one after another: a record ends where its movetext
// is followed by a blank line or a tag line, or at the end (a blank line or
// a line beginning with [ inside a brace comment does not end it). Each is
// answered as a line is, its line number the line the record begins on; a
// syntax error's detail names the line of r, not of the record. A record
// longer than maxRecord bytes is answered body_too_large, and the records
// after it are read on. It stops at the end of r or at the first error
// reading r or writing w, which it returns.
func ValidateTexts(r io.Reader, w io.Writer, maxRecord int) (BatchCounts, error) {
	var counts BatchCounts
	enc := json.NewEncoder(w)
	br := bufio.NewReaderSize(r, min(maxRecord+1, 64<<10))
	var (
		buf       strings.Builder
		first     int  // the line the record began on; 0 when none has
		movetext  bool // the record has a movetext line
		inComment bool // a brace comment of the movetext is open at the end of the line
		tooLong   bool
	)
	flush := func() error {
		if first == 0 {
			return nil
		}
		var answer any
		if tooLong {
			counts.Problems++
			answer = lineProblem(first, newError(httpx.ErrBodyTooLarge, "the record is longer than %d bytes", maxRecord))
		} else if req, err := requestOfText(buf.String()); err != nil {
			counts.Problems++
			answer = lineProblem(first, bodyLines(err, first))
		} else if a, err := validateRecord(req); err != nil {
			counts.Problems++
			answer = lineProblem(first, err)
		} else {
			if a.Valid {
				counts.Valid++
			} else {
				counts.Invalid++
			}
			answer = batchAnswer{Line: first, ValidateAnswer: a}
		}
		buf.Reset()
		first, movetext, tooLong = 0, false, false
		return enc.Encode(answer)
	}
	for n := 1; ; n++ {
		// A line longer than the buffer comes in pieces; a record only
		// grows to maxRecord bytes, and what is beyond is counted, not kept.
		// lastBrace is the last { or } of what is not kept: it decides
		// whether the line leaves a comment open.
		var (
			line      []byte
			lastBrace byte
			rerr      error
		)
		for {
			var piece []byte
			piece, rerr = br.ReadSlice('\n')
			if len(line) <= maxRecord {
				line = append(line, piece...)
			} else if i := bytes.LastIndexAny(piece, "{}"); i >= 0 {
				lastBrace = piece[i]
			}
			if !errors.Is(rerr, bufio.ErrBufferFull) {
				break
			}
		}
		comment := func(open bool, text string) bool {
			open = openComment(open, text)
			if lastBrace != 0 {
				open = lastBrace == '{'
			}
			return open
		}
		if rerr != nil && rerr != io.EOF {
			return counts, rerr
		}
		text := strings.TrimRight(string(line), "\r\n")
		trimmed := strings.TrimSpace(text)
		switch {
		case len(line) == 0 && rerr == io.EOF:
			// The end, after a final newline.
		case inComment:
			// A comment may span lines, and the writer wraps it at its
			// spaces: a line inside one is the record's, even a blank one
			// or one that begins with a [%clk] command.
			inComment = comment(true, text)
			if tooLong || buf.Len()+len(text)+1 > maxRecord {
				tooLong = true
				break
			}
			buf.WriteString(text)
			buf.WriteByte('\n')
		case trimmed == "":
			if movetext {
				if err := flush(); err != nil {
					return counts, err
				}
			}
			if first != 0 {
				// Between a record's tags and its movetext: kept, so that
				// the record's lines are the body's.
				buf.WriteByte('\n')
			}
		default:
			if strings.HasPrefix(trimmed, "[") && movetext {
				if err := flush(); err != nil {
					return counts, err
				}
			}
			if !strings.HasPrefix(trimmed, "[") {
				movetext = true
				inComment = comment(false, text)
			}
			if first == 0 {
				first = n
			}
			if tooLong || buf.Len()+len(text)+1 > maxRecord {
				tooLong = true
				break
			}
			buf.WriteString(text)
			buf.WriteByte('\n')
		}
		if rerr == io.EOF {
			return counts, flush()
		}
	}
}

// openComment reports whether a brace comment is open after a line of
// movetext, given whether one was open before it. Comments do not nest: the
// first } closes one.
func openComment(open bool, line string) bool {
	for i := range len(line) {
		switch line[i] {
		case '{':
			open = true
		case '}':
			open = false
		}
	}
	return open
}

// bodyLines restates a syntax error of a record that begins on line first
// of a body with the body's line number, which is what a client can find.
func bodyLines(err error, first int) error {
	var se *record.SyntaxError
	if first <= 1 || !errors.As(err, &se) {
		return err
	}
	shifted := *se
	shifted.Line += first - 1
	return &shifted
}
