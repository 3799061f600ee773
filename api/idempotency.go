package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/idempotency"
)

// IdempotencyKeyHeader is the header that makes a creation safe to send
// again (see docs/api.md).
const IdempotencyKeyHeader = "Idempotency-Key"

// replayedHeader marks an answer given again for an Idempotency-Key.
const replayedHeader = "Idempotent-Replayed"

// idempotentOperations are the creating operations that honour an
// Idempotency-Key, by operation id. A new creating POST adds its line.
var idempotentOperations = map[string]bool{
	"CreateGame":      true,
	"CreatePlayer":    true,
	"CreateSeek":      true,
	"CreateChallenge": true,
}

// keptHeaders are the headers of an answer that belong to it, and are
// given again with it; the others (request id, rate limits) are the new
// request's.
var keptHeaders = []string{echo.HeaderContentType, echo.HeaderLocation, "ETag"}

// Idempotency decides what a request with an Idempotency-Key gets
// (*idempotency.Service).
type Idempotency interface {
	Begin(ctx context.Context, scope, key string, request ...[]byte) (*idempotency.Claim, *idempotency.Answer, error)
}

// idempotent wraps the operation op: a request that sends an
// Idempotency-Key runs once, and its successful answer is given again, as
// it was, to the same request with the same key. Only a 2xx answer is
// kept: a refusal or a failure releases the key, so the retry runs afresh.
// It runs after the validator, so the body it fingerprints is known JSON;
// the credentials are part of the request, so one key sent by two players
// is two different requests.
func (s *Server) idempotent(op string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			values := req.Header.Values(IdempotencyKeyHeader)
			if len(values) == 0 || s.opts.Idempotency == nil {
				return next(c)
			}
			body, err := requestBytes(req)
			if err != nil {
				return err
			}
			claim, kept, err := s.opts.Idempotency.Begin(req.Context(), op, idempotencyKey(values[0]), body,
				[]byte(req.Header.Get(echo.HeaderAuthorization)), []byte(req.Header.Get(PlayerTokenHeader)))
			if err != nil {
				return err
			}
			if kept != nil {
				return replay(c, kept)
			}
			return s.keep(c, claim, next)
		}
	}
}

// keep runs next and keeps its answer under claim, or releases the claim.
func (s *Server) keep(c echo.Context, claim *idempotency.Claim, next echo.HandlerFunc) error {
	res := c.Response()
	rec := &answerRecorder{ResponseWriter: res.Writer}
	res.Writer = rec
	err := next(c)
	res.Writer = rec.ResponseWriter
	// The client going away must not leave the key held, nor lose an
	// answer that was made.
	ctx := context.WithoutCancel(c.Request().Context())
	if err != nil || !res.Committed || res.Status < 200 || res.Status > 299 {
		if rerr := claim.Release(ctx); rerr != nil {
			s.log.Warn("releasing an idempotency key failed; a retry with it gets 409 until the key's lease ends", "error", rerr)
		}
		return err
	}
	a := idempotency.Answer{Status: res.Status, Header: map[string]string{}, Body: rec.body.Bytes()}
	for _, h := range keptHeaders {
		if v := res.Header().Get(h); v != "" {
			a.Header[h] = v
		}
	}
	if err := claim.Complete(ctx, a); err != nil {
		s.log.Warn("keeping an idempotent answer failed; a retry with its key may run again", "error", err)
	}
	return nil
}

// replay gives a kept answer.
func replay(c echo.Context, a *idempotency.Answer) error {
	h := c.Response().Header()
	for k, v := range a.Header {
		h.Set(k, v)
	}
	h.Set(replayedHeader, "true")
	c.Response().WriteHeader(a.Status)
	_, err := c.Response().Write(a.Body)
	return err
}

// idempotencyKey reads the header's value: the draft makes it a
// structured-field string ("..."), and many clients send it bare; both
// name the same key.
func idempotencyKey(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return v
}

// requestBytes reads the request's body without using it up: the
// validator leaves a way to read it again (GetBody), which the handler's
// own reading does not touch.
func requestBytes(req *http.Request) ([]byte, error) {
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err == nil {
			defer rc.Close()
			return io.ReadAll(rc)
		}
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// answerRecorder copies what is written to the client.
type answerRecorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *answerRecorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *answerRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
