// Package api translates HTTP: it serves the API that openapi.yaml specifies
// through the echo server generated in api/oapi, validates requests against
// the embedded document, and hands them to the engine and the search (the
// stateless endpoints), the games service and the puzzle feed, which make
// every decision. Every error becomes an RFC 9457 problem through the one
// table in errors.go.
//
// It holds handlers, conversions and errors; what serves any HTTP API lives
// beside it: limits, stream slots, body reading, the event-stream writer and
// request IDs and logs in api/internal/httpx, the problem writer in
// api/internal/problem, the /docs page in api/docs, the browser client in
// api/web.
package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ayoayo/ayoayo/api/docs"
	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/web"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/games"
)

// Limits the API enforces. The OpenAPI document states the same numbers;
// a test keeps the two in step.
const (
	DefaultBodyLimit = 64 << 10 // bytes of request body
	MaxRecordMoves   = 2000     // moves in a record sent to /v1/validate
	MaxAnalyzeDepth  = 30       // plies, the default and the maximum
	MaxAnalyzeTimeMs = 10000    // milliseconds, the maximum
	DefaultAnalyzeMs = 1000     // milliseconds, the default
)

// Defaults of the event-stream limits, per instance.
const (
	DefaultMaxStreams          = 10000
	DefaultMaxStreamsPerClient = 50
	DefaultMaxStreamsPerGame   = 10000
)

// Pinger is what readiness needs of the database: the stores have it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Options configure the server. The zero value serves with defaults: no
// logging, always ready, any CORS origin, DefaultBodyLimit, one analysis per
// CPU, and 503 for the game and puzzle operations. A service's presence is
// its feature switch: the handlers never check for nil.
type Options struct {
	// Logger receives one structured line per request and the details of
	// every fault. Nil discards them.
	Logger *slog.Logger
	// DB is checked by /readyz. Nil: always ready.
	DB Pinger
	// Stopping makes /readyz answer 503 at once when closed: close it when
	// shutdown begins, before the drain, so a balancer sends no more.
	Stopping <-chan struct{}
	// CORSOrigins are the origins browsers may call the API from; nil or
	// empty means any ("*").
	CORSOrigins []string
	// BodyLimit caps request bodies in bytes (413 beyond). Zero means
	// DefaultBodyLimit.
	BodyLimit int64
	// BatchBodyLimit and BatchMaxLines cap the body of /v1/validate/batch,
	// in bytes and in lines (413 beyond either); each line is capped at
	// BodyLimit. Zero means DefaultBatchBodyLimit, DefaultBatchMaxLines.
	BatchBodyLimit int64
	BatchMaxLines  int
	// Analyses answers /v1/analyze (*analysis.Service). Nil: /v1/analyze
	// answers 503 (an analysis.Service needs the process's CPU budget,
	// which only the caller has).
	Analyses Analyzer
	// Budget is the process's CPU budget, shown on /metrics. Nil: not shown.
	Budget *budget.Budget

	// Games runs game sessions (*games.Service). Nil: the /v1/games
	// operations answer 503.
	Games GameService
	// Hub follows games for the event streams (*games.Hub, the Notifier
	// of Games). Nil: the streams answer 503.
	Hub GameHub
	// Exports streams a player's games (*games.Exporter). Nil: the
	// export answers 503.
	Exports GameExporter
	// RateLimits are the per-client-address limits, by the Name of their
	// row of Limits (game creations, joins, moves, event-stream opens,
	// practice puzzles, player creations). A limit absent, or with a Rate
	// of 0, is none; a name that is no row's fails New.
	RateLimits RateLimits
	// Now is the clock the rate limits refill by. Nil: time.Now.
	Now func() time.Time
	// TrustedProxies are the address ranges of the reverse proxies in front
	// of the server. A request that comes from one of them is counted, in
	// the per-client limits and the log, for the rightmost address of its
	// X-Forwarded-For that is not in these ranges: each proxy appends the
	// address it got the request from, so that is the last one a trusted
	// hop vouches for, and anything left of it is the client's to write.
	// Empty: the connection's address, whatever the headers say.
	TrustedProxies []*net.IPNet
	// EventHeartbeat is how often an idle event stream gets a comment line.
	// Zero: DefaultEventHeartbeat.
	EventHeartbeat time.Duration
	// MaxStreams, MaxStreamsPerClient and MaxStreamsPerGame bound the open
	// event streams of this instance: in total and per game (503 beyond),
	// and per client address (429 beyond). Zero: the Default values;
	// negative: no limit.
	MaxStreams          int
	MaxStreamsPerClient int
	MaxStreamsPerGame   int

	// RequestLog is which requests get a line in the log: RequestLogAll
	// (the zero value), RequestLogErrors (answers of 400 and above) or
	// RequestLogNone. Faults are logged in full either way.
	RequestLog RequestLog

	// Metrics is the registry /metrics exposes and the request metrics are
	// recorded in. Nil: a new registry with the Go and process collectors.
	Metrics *prometheus.Registry
	// MetricsElsewhere: the registry is served on an admin port (see
	// Admin), and GET /metrics here is 404 route_not_found, so the public
	// port does not show the server's insides.
	MetricsElsewhere bool

	// Puzzles is the daily puzzle feed (*puzzles.Feed). Nil: the puzzle
	// operations answer 503.
	Puzzles PuzzleFeed

	// Players manages players and their tokens (*players.Service). Nil:
	// the player operations answer 503, and so does a request elsewhere
	// that sends a Player-Token (it is never taken for an anonymous one).
	Players PlayerService
	// Idempotency keeps the answers of creations sent with an
	// Idempotency-Key (*idempotency.Service over the store), so a retried
	// creation gets the first one's answer. Nil: the header is ignored.
	Idempotency Idempotency

	// Document is the embedded OpenAPI document as LoadDocument returns
	// it, which the validator reads; New keeps it and changes nothing in
	// it. Nil: New loads it (a few hundred milliseconds of CPU, which a
	// caller may spend beforehand, beside other work).
	Document *openapi3.T

	// Lobby runs seeks, challenges, rematches and the players' event
	// streams (*lobby.Service). Nil: those operations answer 503. Seek and
	// challenge creations are limited per client address as game creations
	// are (GameCreateRate, each in a bucket of its own), and opening a
	// player's or the lobby's event stream as a game's is (StreamRate).
	Lobby LobbyService
	// Tournaments runs arenas, Swiss events and bulk pairings
	// (*tournaments.Service). Nil: those operations answer 503. An
	// event's stream is opened as the lobby's is.
	Tournaments TournamentService

	// Reviews reviews games (*review.Service). Nil: the review operations
	// answer 503.
	Reviews ReviewService
	// Explorer answers the opening explorer (*explorer.Service). Nil:
	// GET /v1/explorer answers 503.
	Explorer ExplorerService
}

// RequestLog says which requests are logged (Options.RequestLog).
type RequestLog string

// The values of RequestLog, as --request-log spells them.
const (
	RequestLogAll    RequestLog = "all"
	RequestLogErrors RequestLog = "errors"
	RequestLogNone   RequestLog = "none"
)

// ParseRequestLog reads a RequestLog, refusing any other word.
func ParseRequestLog(s string) (RequestLog, error) {
	switch l := RequestLog(s); l {
	case RequestLogAll, RequestLogErrors, RequestLogNone:
		return l, nil
	}
	return "", fmt.Errorf("request log %q is not all, errors or none", s)
}

// minStatus is the lowest status logged; -1: none.
func (l RequestLog) minStatus() int {
	switch l {
	case RequestLogErrors:
		return 400
	case RequestLogNone:
		return -1
	}
	return 0
}

// limitOr reads a limit option: zero means def, a negative number no limit
// (0 to httpx.StreamSlots).
func limitOr(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	if len(o.CORSOrigins) == 0 {
		o.CORSOrigins = []string{"*"}
	}
	if o.BodyLimit <= 0 {
		o.BodyLimit = DefaultBodyLimit
	}
	if o.BatchBodyLimit <= 0 {
		o.BatchBodyLimit = DefaultBatchBodyLimit
	}
	if o.BatchMaxLines <= 0 {
		o.BatchMaxLines = DefaultBatchMaxLines
	}
	if o.Analyses == nil {
		o.Analyses = noAnalyses{}
	}
	if o.Games == nil {
		o.Games = noGames{}
	}
	if o.Hub == nil {
		o.Hub = noGames{}
	}
	if o.Exports == nil {
		o.Exports = noExports{}
	}
	if o.Puzzles == nil {
		o.Puzzles = noPuzzles{}
	}
	if o.Players == nil {
		o.Players = noPlayers{}
	}
	if o.Lobby == nil {
		o.Lobby = noLobby{}
	}
	if o.Tournaments == nil {
		o.Tournaments = noTournaments{}
	}
	if o.Reviews == nil {
		o.Reviews = noReviews{}
	}
	if o.Explorer == nil {
		o.Explorer = noExplorer{}
	}
	if o.EventHeartbeat <= 0 {
		o.EventHeartbeat = DefaultEventHeartbeat
	}
	o.MaxStreams = limitOr(o.MaxStreams, DefaultMaxStreams)
	o.MaxStreamsPerClient = limitOr(o.MaxStreamsPerClient, DefaultMaxStreamsPerClient)
	o.MaxStreamsPerGame = limitOr(o.MaxStreamsPerGame, DefaultMaxStreamsPerGame)
	if o.Metrics == nil {
		o.Metrics = prometheus.NewRegistry()
		o.Metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return o
}

// Server implements the generated StrictServerInterface. Each resource's
// handlers live in their own file (handlers.go for the stateless moves,
// games.go, puzzles.go, players.go, ops.go), all methods of this one type.
type Server struct {
	opts      Options
	log       *slog.Logger
	spec      *openapi3.T                // the embedded document, as loaded
	documents func() (*documents, error) // /openapi.yaml and /docs

	analyses Analyzer
	metrics  analysisMetrics

	games   GameService
	hub     GameHub
	exports GameExporter
	frames  *frames // of the events the hub hands out
	feed    PuzzleFeed
	players PlayerService
	lobby   LobbyService
	reviews ReviewService
	// tournaments runs the events.
	tournaments TournamentService
	streams     *httpx.StreamSlots // of open event streams

	explorer ExplorerService
	marks    *botMarks // which players are bots
	// tokenPlayers names the player of a request's Player-Token, for the
	// per-player rate limits.
	tokenPlayers *tokenPlayers

	// needs is what each operation asks of a player token, read from the
	// document's security (tokens.go).
	needs map[string]need
}

var _ oapi.StrictServerInterface = (*Server)(nil)

// New builds the HTTP server: the generated routes with their validator,
// and the middleware every request goes through. It fails only if the
// embedded document does not load, which a test rules out.
func New(opts Options) (*echo.Echo, error) {
	_, e, err := newServer(opts)
	return e, err
}

// newServer is New that also returns the handlers, for tests.
func newServer(opts Options) (*Server, *echo.Echo, error) {
	opts = opts.withDefaults()
	var err error
	spec := opts.Document
	if spec == nil {
		if spec, err = LoadDocument(); err != nil {
			return nil, nil, err
		}
	}
	s := &Server{
		opts:        opts,
		log:         opts.Logger,
		spec:        spec,
		analyses:    opts.Analyses,
		games:       opts.Games,
		hub:         opts.Hub,
		exports:     opts.Exports,
		feed:        opts.Puzzles,
		players:     opts.Players,
		lobby:       opts.Lobby,
		tournaments: opts.Tournaments,
		reviews:     opts.Reviews,
		explorer:    opts.Explorer,
		streams:     httpx.NewStreamSlots(opts.MaxStreams, opts.MaxStreamsPerClient, opts.MaxStreamsPerGame),
		needs:       needs(spec),
	}
	s.marks = newBotMarks(s.players, opts.Now)
	s.tokenPlayers = newTokenPlayers(s.players, opts.Now)
	// A frame is made once for every follower of its game, so its marks
	// are read apart from any one request.
	s.frames = newFrames(func(e games.Event) ([]byte, error) {
		var bots botSet
		if e.Game != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			bots = s.marks.of(ctx, e.Game.Players[0].ID, e.Game.Players[1].ID)
		}
		return encodeMarkedEvent(e, bots)
	})
	// The documents take longer to make than the rest of New together
	// (rendering the page, writing the YAML, from a copy of the document
	// of their own): made on the first request for either, so a starting
	// server serves everything else at once and spends no CPU on them
	// beside its first requests; that first request waits for them.
	s.documents = sync.OnceValues(renderDocuments)
	if s.metrics, err = newAnalysisMetrics(opts.Metrics); err != nil {
		return nil, nil, err
	}
	if err := registerBudgetMetrics(opts.Metrics, opts.Budget); err != nil {
		return nil, nil, err
	}
	if err := opts.Metrics.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "ayoayo", Name: "event_streams_open", Help: "Event streams (GET /v1/games/{id}/events) this instance serves now.",
	}, func() float64 { return float64(s.streams.Open()) })); err != nil {
		return nil, nil, err
	}
	e, err := s.echo()
	if err != nil {
		return nil, nil, err
	}
	return s, e, nil
}

// echo wires the middleware, outermost first, and registers the routes.
func (s *Server) echo() (*echo.Echo, error) {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.JSONSerializer = jsonSerializer{}
	e.IPExtractor = httpx.ClientAddress(s.opts.TrustedProxies)
	// Errors that escape the middleware below (none should) still become
	// problems.
	e.HTTPErrorHandler = func(err error, c echo.Context) { writeProblem(c, err, s.log) }

	metricsMW, err := s.requestMetrics()
	if err != nil {
		return nil, err
	}
	e.Use(
		httpx.RequestIDs(),
		metricsMW, // sees the final status, the problems included
		httpx.LogRequests(s.log, s.opts.RequestLog.minStatus()), // likewise
	)
	e.Use(compress()) // every answer below, problems included
	e.Use(
		s.problems,         // every error below becomes a problem+json answer
		httpx.RecoverPanic, // a panic below becomes an error
		middleware.CORSWithConfig(middleware.CORSConfig{
			AllowOrigins:  s.opts.CORSOrigins,
			AllowMethods:  []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
			AllowHeaders:  corsAllowHeaders,
			ExposeHeaders: corsExposeHeaders,
			MaxAge:        600,
		}),
		httpx.BodyLimit(s.opts.BodyLimit, map[string]int64{batchPath: s.opts.BatchBodyLimit}),
	)

	validate, err := s.validators()
	if err != nil {
		return nil, err
	}
	// The rate limits come first: a refused request costs next to nothing.
	perOp, err := rateLimits(s.opts.RateLimits, s.opts.Now, validate, s.tokenPlayers.of)
	if err != nil {
		return nil, err
	}
	for id, v := range validate {
		mw := perOp[id]
		if idempotentOperations[id] {
			// After the validator: the key is read from a valid request.
			v = chain(v, s.idempotent(id))
		}
		switch id {
		case batchOperation:
			perOp[id] = append(mw, requireBatch, v)
			continue
		case validateOperation:
			perOp[id] = append(mw, requireJSONOrRecord, v)
			continue
		}
		perOp[id] = append(mw, requireJSON, v)
	}
	// Every GET operation stands for its HEAD: the document declares no
	// HEAD operations.
	oapi.RegisterHandlersWithOptions(httpx.GetAndHead{Echo: e}, oapi.NewStrictHandler(s, []oapi.StrictMiddlewareFunc{s.withCaller}), oapi.RegisterHandlersOptions{OperationMiddlewares: perOp})
	// The OAuth endpoints (oauth.go), outside the document.
	e.POST(oauthTokenPath, s.oauthToken)
	e.POST(oauthRevokePath, s.oauthRevoke)
	httpx.GetAndHead{Echo: e}.GET(oauthMetadataPath, s.oauthMetadata)
	// The reference browser client (api/web): the page at /, its files
	// under /assets/ and its icon at /favicon.ico, using only the routes
	// above.
	client := echo.WrapHandler(web.Handler())
	for _, path := range web.Routes {
		httpx.GetAndHead{Echo: e}.GET(path, client)
	}
	return e, nil
}

// LoadDocument loads the embedded OpenAPI document (Options.Document).
func LoadDocument() (*openapi3.T, error) {
	spec, err := oapi.GetSwagger()
	if err != nil {
		return nil, fmt.Errorf("load the embedded OpenAPI document: %w", err)
	}
	return spec, nil
}

// documents are the embedded document's renderings: the YAML of
// /openapi.yaml and the page of /docs.
type documents struct {
	yaml, html []byte
}

// renderDocuments makes the documents from a copy of the embedded
// document of their own (rendering reads it while the validator does).
func renderDocuments() (*documents, error) {
	spec, err := oapi.GetSwagger()
	if err != nil {
		return nil, fmt.Errorf("load the embedded OpenAPI document: %w", err)
	}
	var d documents
	if d.yaml, err = docs.YAML(spec); err != nil {
		return nil, err
	}
	if d.html, err = docs.Render(spec, ProblemCodes(), problem.Anchor); err != nil {
		return nil, err
	}
	return &d, nil
}

// chain makes one middleware of outer then inner.
func chain(outer, inner echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc { return outer(inner(next)) }
}

// Headers browsers may send and read across origins. Add here any header a
// new operation takes or returns.
var (
	corsAllowHeaders  = []string{echo.HeaderContentType, echo.HeaderAuthorization, echo.HeaderXRequestID, "If-Match", "If-None-Match", "Last-Event-ID", PlayerTokenHeader, IdempotencyKeyHeader}
	corsExposeHeaders = []string{echo.HeaderXRequestID, echo.HeaderRetryAfter, echo.HeaderLocation, "ETag", "RateLimit", "RateLimit-Policy", replayedHeader}
)
