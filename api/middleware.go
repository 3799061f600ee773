package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
	oapimw "github.com/oapi-codegen/echo-middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/record"
)

// problems answers every error returned below it as problem+json, so the
// logging and metrics middleware above see the status the client got.
func (s *Server) problems(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := next(c); err != nil {
			writeProblem(c, err, s.log)
		}
		return nil
	}
}

// requestMetrics records request counts, durations and sizes by route,
// method and status. Labels come only from the route table, never from the
// request, so a client cannot make the series grow without bound; a path no
// route matches is the route "unmatched", never an empty label.
// (echoprometheus's middleware has a host label that cannot be dropped.)
func (s *Server) requestMetrics() (echo.MiddlewareFunc, error) {
	labels := []string{"route", "method", "code"}
	count := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "ayoayo", Subsystem: "http", Name: "requests_total",
		Help: "Requests answered, by route, method and status."}, labels)
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "ayoayo", Subsystem: "http", Name: "request_duration_seconds",
		Help: "Time from a request's arrival to its answer's end, by route, method and status.", Buckets: prometheus.DefBuckets}, labels)
	sizes := []float64{256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}
	reqSize := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "ayoayo", Subsystem: "http", Name: "request_size_bytes",
		Help: "Request bodies' sizes as declared (Content-Length), by route, method and status.", Buckets: sizes}, labels)
	resSize := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "ayoayo", Subsystem: "http", Name: "response_size_bytes",
		Help: "Answer bodies' sizes as sent (compressed when they were), by route, method and status.", Buckets: sizes}, labels)
	for _, c := range []prometheus.Collector{count, duration, reqSize, resSize} {
		if err := s.opts.Metrics.Register(c); err != nil {
			return nil, err
		}
	}
	// Each series' four metrics are looked up once and kept, by route,
	// method and status: a request then costs no hashing of its labels.
	var series sync.Map // seriesKey → *requestSeries
	find := func(k seriesKey) *requestSeries {
		if m, ok := series.Load(k); ok {
			return m.(*requestSeries)
		}
		values := []string{k.route, k.method, strconv.Itoa(k.code)}
		m, _ := series.LoadOrStore(k, &requestSeries{count.WithLabelValues(values...), duration.WithLabelValues(values...),
			reqSize.WithLabelValues(values...), resSize.WithLabelValues(values...)})
		return m.(*requestSeries)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			m := find(seriesKey{route, c.Request().Method, c.Response().Status})
			m.count.Inc()
			m.duration.Observe(time.Since(start).Seconds())
			m.reqSize.Observe(float64(max(c.Request().ContentLength, 0)))
			m.resSize.Observe(float64(c.Response().Size))
			return err
		}
	}, nil
}

// seriesKey names a series of the request metrics: there are as many
// keys kept as series.
type seriesKey struct {
	route, method string
	code          int
}

// requestSeries are the request metrics of one seriesKey.
type requestSeries struct {
	count                      prometheus.Counter
	duration, reqSize, resSize prometheus.Observer
}

// compress gzips answers of at least compressMinLength bytes for a client
// that accepts it (httpx.Gzip, which sets nothing of gzip up for a smaller
// answer), at two levels: the documents (the docs page, the spec, the
// browser client's files), large and asked for now and then, at gzip's
// default level, which makes them a third smaller than its fastest;
// everything else (JSON answers, problems, on the request path of every
// move) at the fastest, which costs a third of the default's CPU on a small
// answer and saves nearly as much. An event stream is left as it is: the
// gzip writer would hold each event until a block filled, and a follower
// must get it at once.
func compress() echo.MiddlewareFunc {
	return httpx.Gzip(compressMinLength, func(c echo.Context) int {
		p := c.Path()
		switch {
		case p == "/docs" || p == "/openapi.yaml" || p == "/" || strings.HasPrefix(p, "/assets/"):
			return gzip.DefaultCompression
		case strings.HasSuffix(p, "/events") || strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream"):
			return gzip.NoCompression
		}
		return gzip.BestSpeed
	})
}

// compressMinLength is the smallest answer compressed. A game's answer
// (about 700 bytes) halves, which a phone on a slow network feels; below
// half a kilobyte (a health check, most problems) gzip's header and its
// CPU buy next to nothing. docs/performance.md has the figures.
const compressMinLength = 512

// requireJSON refuses a request body that is not declared as JSON, before
// the validator sees it: 415 says what is wrong better than a schema error.
var requireJSON = httpx.RequireMediaType(echo.MIMEApplicationJSON, func(mt string) bool {
	return mt == echo.MIMEApplicationJSON || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
})

// requireJSONOrRecord is requireJSON for /v1/validate, which reads a
// record in the text notation too.
var requireJSONOrRecord = httpx.RequireMediaType(echo.MIMEApplicationJSON+" or "+record.MediaType, func(mt string) bool {
	return mt == record.MediaType || mt == echo.MIMEApplicationJSON || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
})

// validateOperation is POST /v1/validate.
const validateOperation = "ValidateRecord"

// requireBatch is requireJSON for /v1/validate/batch, which reads NDJSON
// or records in the text notation.
var requireBatch = httpx.RequireMediaType(MIMEApplicationNDJSON+" or "+record.MediaType, func(mt string) bool {
	return mt == MIMEApplicationNDJSON || mt == record.MediaType
})

// validators returns, for each operation id, the middleware that checks a
// request against that operation of the embedded OpenAPI document with
// echo-middleware's ValidateRequestFromContext. Echo has already routed the
// request to the operation, so the validator is told which operation it is
// instead of routing the request a second time. Its errors become this
// package's ErrMalformedJSON (the body is not JSON) or ErrInvalidRequest (it
// does not match the schema), with the place and the reason in the detail.
func (s *Server) validators() (map[string]echo.MiddlewareFunc, error) {
	// kin-openapi keeps its body decoders in one process-wide table. Every
	// server registers this same function, so a second New changes nothing;
	// another validator in the process gets the same, stricter decoding.
	openapi3filter.RegisterBodyDecoder(echo.MIMEApplicationJSON, jsonBodyDecoder)
	// An NDJSON body is a string to the document (each line is checked by
	// the handler, against the schema of one record): kin-openapi's own
	// decoder of a body that is a file.
	openapi3filter.RegisterBodyDecoder(MIMEApplicationNDJSON, openapi3filter.FileBodyDecoder)
	// So is a game record in the text notation: package record reads it.
	openapi3filter.RegisterBodyDecoder(record.MediaType, openapi3filter.FileBodyDecoder)
	spec := new(openapi3.T) // the document without its servers: match paths, not hosts
	*spec = *s.spec
	spec.Servers = nil
	opts := &oapimw.Options{
		Options: openapi3filter.Options{
			// Security is the handlers' business (game tokens are checked
			// against the store), not the schema's.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			// Defaults are the handlers' too: filling them in would make the
			// validator re-encode every body.
			SkipSettingDefaults: true,
			// The handler binds the value the validator decoded instead of
			// decoding the body a second time.
			KeepValidatedValue: true,
		},
	}
	out := map[string]echo.MiddlewareFunc{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			route := &routers.Route{Spec: spec, Path: path, PathItem: item, Method: method, Operation: op}
			out[op.OperationID] = func(next echo.HandlerFunc) echo.HandlerFunc {
				return func(c echo.Context) error {
					if err := singleValues(c.Request(), op.Parameters); err != nil {
						return err
					}
					if he := oapimw.ValidateRequestFromContext(c, routed{route, pathParams(c)}, opts); he != nil {
						return validationError(he)
					}
					return bindingError(next(c))
				}
			}
		}
	}
	return out, nil
}

// jsonBodyDecoder is kin-openapi's own decoding of a JSON body (encoding/json
// with UseNumber, so the schema sees numbers as written) that also refuses
// anything but white space after the value: kin-openapi's stops reading
// there, so a body such as `{"pit":0} junk` would pass as valid.
func jsonBodyDecoder(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}
	}
	if len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")) > 0 {
		// json.Unmarshal reads the whole body and says what is wrong after
		// the value, in encoding/json's words.
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: json.Unmarshal(data, new(any))}
	}
	return v, nil
}

// routed is the operation echo routed a request to, in the form of a
// kin-openapi router that finds just that.
type routed struct {
	route  *routers.Route
	params map[string]string
}

func (r routed) FindRoute(*http.Request) (*routers.Route, map[string]string, error) {
	return r.route, r.params, nil
}

// pathParams are the path parameters echo matched, by name (the generated
// routes name them as the document does).
func pathParams(c echo.Context) map[string]string {
	names := c.ParamNames()
	if len(names) == 0 {
		return nil
	}
	values := c.ParamValues()
	m := make(map[string]string, len(names))
	for i, n := range names {
		if i < len(values) {
			m[n] = values[i]
		}
	}
	return m
}

// validationError classifies the validator's verdict. (It never reports a
// missing route: echo routed the request before it.)
func validationError(he *echo.HTTPError) error {
	// A parameter that does not parse (a header that should be a number,
	// say) is a wrong value, not a body that is not JSON.
	var re *openapi3filter.RequestError
	if errors.As(he.Internal, &re) && re.Parameter != nil {
		return newError(ErrInvalidRequest, "%s parameter %s: %s", re.Parameter.In, re.Parameter.Name, parameterReason(re))
	}
	if err := bodyError(he.Internal); err != nil {
		return err
	}
	if errors.As(he.Internal, &re) && re.RequestBody != nil && errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
		return missingBody(re.RequestBody)
	}
	msg := fmt.Sprint(he.Message)
	if he.Internal != nil {
		msg, _, _ = strings.Cut(he.Internal.Error(), "\n")
	}
	return newError(ErrInvalidRequest, "%s", msg)
}

// missingBody says that a request that needs a body came without one, and
// which fields its body needs.
func missingBody(body *openapi3.RequestBody) error {
	var required []string
	if mt := body.Content.Get(echo.MIMEApplicationJSON); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
		required = mt.Schema.Value.Required
	}
	if len(required) == 0 {
		return errNoBody
	}
	return newError(ErrInvalidRequest, "the request needs a JSON body with %s", quotedList(required))
}

// quotedList is "`a`", "`a` and `b`", "`a`, `b` and `c`".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// bodyError classifies what the validator found wrong with a JSON body, or
// with a line of a batch: not JSON is ErrMalformedJSON, JSON that does not
// match the schema ErrInvalidRequest, with the place and the reason in the
// detail. Nil: neither.
func bodyError(err error) error {
	var pe *openapi3filter.ParseError
	if errors.As(err, &pe) {
		var se *json.SyntaxError
		if errors.As(pe.Cause, &se) {
			return newError(ErrMalformedJSON, "the request body is not valid JSON: %v (at byte %d)", pe.Cause, se.Offset)
		}
		return newError(ErrMalformedJSON, "the request body is not valid JSON: %v", pe.Cause)
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		where := "/" + strings.Join(se.JSONPointer(), "/")
		return newError(ErrInvalidRequest, "request body at %s: %s", where, schemaReason(se))
	}
	return nil
}

// parameterReason says what is wrong with a parameter in the validator's
// own words, but never the schema or the value its texts go on to quote: a
// header's value may be as long as the server reads, and the answer and the
// log line would repeat it.
func parameterReason(re *openapi3filter.RequestError) string {
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		return schemaReason(se)
	}
	var reasons []string
	var pe *openapi3filter.ParseError
	for err := re.Err; errors.As(err, &pe); err = pe.Cause {
		if pe.Reason != "" {
			reasons = append(reasons, pe.Reason)
		}
	}
	if errors.Is(re.Err, strconv.ErrRange) {
		reasons = append(reasons, "out of range")
	}
	switch {
	case len(reasons) > 0:
		return strings.Join(reasons, ": ")
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired), errors.Is(re.Err, openapi3filter.ErrInvalidEmptyValue):
		return re.Err.Error()
	}
	return "not a valid value"
}

// schemaReason is the validator's reason, but for a value that does not
// match a pattern, whose reason quotes the regular expression: a client
// reads what the value must be instead.
func schemaReason(se *openapi3.SchemaError) string {
	if se.SchemaField != "pattern" || se.Schema == nil {
		return se.Reason
	}
	if what, ok := patternNames[se.Schema.Pattern]; ok {
		return "not " + what
	}
	return "not of the form the document gives (see /docs)"
}

// patternNames says in words what each pattern of the document matches.
var patternNames = map[string]string{
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`:                                             "a date YYYY-MM-DD",
	`^x[1-9][0-9]?-d[0-5]-g[a-z_]+-t[a-z_]+-(0|[1-9][0-9]{0,15})$`:             "a practice puzzle's id (x2-d3-gwin-tany-2939271465286828, say)",
	`^(p[0-9]{8}|x[1-9][0-9]?-d[0-5]-g[a-z_]+-t[a-z_]+-(0|[1-9][0-9]{0,15}))$`: "a puzzle's id (p20260301, or a practice puzzle's)",
	`^[A-Za-z0-9_-]{1,64}$`:                                                    "1 to 64 characters of A-Z a-z 0-9 _ -",
	`^[A-Za-z0-9_-]{43}$`:                                                      "43 characters of A-Z a-z 0-9 _ - (a PKCE S256 challenge)",
	`^[A-Za-z0-9._-]{1,64}$`:                                                   "1 to 64 characters of A-Z a-z 0-9 . _ -",
}

// singleValues refuses a header or query parameter sent more than once
// where the document has one value: the validator would read the first,
// and the generated code refuse the request in its own words.
func singleValues(req *http.Request, params openapi3.Parameters) error {
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Type.Is(openapi3.TypeArray) {
			continue
		}
		// X-Request-ID is the RequestID middleware's, which takes the first
		// and never refuses one: the document declares it so that clients
		// see it, not to refuse a request that repeats it.
		if p.In == openapi3.ParameterInHeader && http.CanonicalHeaderKey(p.Name) == echo.HeaderXRequestID {
			continue
		}
		var n int
		switch p.In {
		case openapi3.ParameterInHeader:
			n = len(req.Header.Values(p.Name))
		case openapi3.ParameterInQuery:
			n = len(req.URL.Query()[p.Name])
		}
		if n > 1 {
			return newError(ErrInvalidRequest, "%s parameter %s: sent %d times, at most once", p.In, p.Name, n)
		}
	}
	return nil
}

// bindingError answers the errors of the generated wrapper's own parameter
// binding. Every parameter it binds has passed the validator, so it should
// refuse none; if it does, its text (which may quote the value) is not
// shown.
func bindingError(err error) error {
	if he, ok := err.(*echo.HTTPError); ok && he.Code == http.StatusBadRequest && he.Internal == nil { //nolint:errorlint // the generated code returns it as is
		return newError(ErrInvalidRequest, "a parameter could not be read as the document declares it; see /docs")
	}
	return err
}

// jsonSerializer is echo's JSON codec with decoding errors classified: not
// JSON at all is ErrMalformedJSON, JSON of the wrong shape ErrInvalidRequest.
type jsonSerializer struct{ echo.DefaultJSONSerializer }

func (jsonSerializer) Deserialize(c echo.Context, i any) error {
	err := json.NewDecoder(c.Request().Body).Decode(i)
	var se *json.SyntaxError
	var ute *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return newError(ErrMalformedJSON, "the request body is not valid JSON: %v", err)
	case errors.As(err, &ute):
		return newError(ErrInvalidRequest, "request body at /%s: want %s, got a JSON %s", strings.ReplaceAll(ute.Field, ".", "/"), ute.Type, ute.Value)
	default:
		return newError(ErrInvalidRequest, "%v", err)
	}
}
