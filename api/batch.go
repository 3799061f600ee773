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
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
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

// ValidateLines reads NDJSON records from r, one ValidateRequest per line,
// and writes to w one answer line per non-blank line, in order, as it goes:
// a ValidateBatchAnswer for a record, valid or not, a ValidateBatchProblem
// for a line that is not one (not JSON, not of the schema, longer than
// maxLine bytes, a start position or rules the engine refuses). Line
// numbers count from 1, blank lines included. It stops at the end of r or
// at the first error reading r or writing w, which it returns.
func ValidateLines(r io.Reader, w io.Writer, maxLine int) (BatchCounts, error) {
	var counts BatchCounts
	schema, err := recordSchema()
	if err != nil {
		return counts, err
	}
	// A line of maxLine bytes and its newline fit the buffer; ReadSlice
	// returns a longer one in pieces, each bufio.ErrBufferFull.
	br := bufio.NewReaderSize(r, maxLine+1)
	enc := json.NewEncoder(w)
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
			a, err := checkLine(schema, line)
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
