// Package api translates HTTP: it serves the API that openapi.yaml specifies
// through the generated echo server (api.gen.go), validates requests against
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
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/docs"
	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/web"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/puzzles/gen"
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
	// Analyses answers /v1/analyze (*analysis.Service). Nil: an
	// analysis.Service with no endgame tables and a CPU budget of its own.
	Analyses Analyzer
	// Budget is the process's CPU budget, shown on /metrics. Nil: not shown.
	Budget *budget.Budget

	// Games runs game sessions (*games.Service). Nil: the /v1/games
	// operations answer 503.
	Games GameService
	// GameCreateRate, JoinRate, MoveRate and StreamRate are how many game
	// creations, joins, moves and event-stream opens one client address may
	// send per minute, in bursts of up to the matching Burst; beyond, 429
	// rate_limited with Retry-After. Every request of the operation counts,
	// refused ones included. Zero: no limit.
	GameCreateRate  int
	GameCreateBurst int
	JoinRate        int
	JoinBurst       int
	MoveRate        int
	MoveBurst       int
	StreamRate      int
	StreamBurst     int
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
	// PracticeRate and PracticeBurst are how many practice puzzles one
	// client address may ask for per minute, and at once (429 rate_limited
	// beyond), as for the game operations. Zero: no limit.
	PracticeRate  int
	PracticeBurst int

	// Players manages players and their tokens (*players.Service). Nil:
	// the player operations answer 503, and so does a request elsewhere
	// that sends a Player-Token (it is never taken for an anonymous one).
	Players PlayerService
	// PlayerCreateRate and PlayerCreateBurst limit player creations per
	// client address, as GameCreateRate does game creations: a player
	// costs a row for ever, so a script must not make millions. Zero: no
	// limit.
	PlayerCreateRate  int
	PlayerCreateBurst int

	// Lobby runs seeks, challenges, rematches and the players' event
	// streams (*lobby.Service). Nil: those operations answer 503. Seek and
	// challenge creations are limited per client address as game creations
	// are (GameCreateRate, each in a bucket of its own), and opening a
	// player's or the lobby's event stream as a game's is (StreamRate).
	Lobby LobbyService
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
		o.Analyses = analysis.New(analysis.Options{})
	}
	if o.Games == nil {
		o.Games = noGames{}
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
	opts     Options
	log      *slog.Logger
	spec     *openapi3.T
	specYAML []byte
	docsHTML []byte

	analyses Analyzer
	metrics  analysisMetrics

	games   GameService
	feed    PuzzleFeed
	players PlayerService
	lobby   LobbyService
	limits  map[string]*httpx.Limiter // per client address, by operation id
	streams *httpx.StreamSlots        // of open event streams
}

var _ StrictServerInterface = (*Server)(nil)

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
	spec, err := GetSwagger()
	if err != nil {
		return nil, nil, fmt.Errorf("load the embedded OpenAPI document: %w", err)
	}
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		spec:     spec,
		analyses: opts.Analyses,
		games:    opts.Games,
		feed:     opts.Puzzles,
		players:  opts.Players,
		lobby:    opts.Lobby,
		limits: map[string]*httpx.Limiter{
			"CreateGame":         httpx.NewLimiter("game creations", opts.GameCreateRate, opts.GameCreateBurst, nil).Named("game-create"),
			"JoinGame":           httpx.NewLimiter("joins", opts.JoinRate, opts.JoinBurst, nil).Named("join"),
			"PlayGameMove":       httpx.NewLimiter("moves", opts.MoveRate, opts.MoveBurst, nil).Named("move"),
			"FollowGameEvents":   httpx.NewLimiter("event streams opened", opts.StreamRate, opts.StreamBurst, nil).Named("stream-open"),
			"GetPracticePuzzle":  httpx.NewLimiter("practice puzzles", opts.PracticeRate, opts.PracticeBurst, nil).Named("practice"),
			"CreatePlayer":       httpx.NewLimiter("player creations", opts.PlayerCreateRate, opts.PlayerCreateBurst, nil).Named("player-create"),
			"CreateSeek":         httpx.NewLimiter("seeks", opts.GameCreateRate, opts.GameCreateBurst, nil).Named("seek-create"),
			"CreateChallenge":    httpx.NewLimiter("challenges", opts.GameCreateRate, opts.GameCreateBurst, nil).Named("challenge-create"),
			"FollowPlayerEvents": httpx.NewLimiter("player event streams opened", opts.StreamRate, opts.StreamBurst, nil).Named("player-stream-open"),
			"FollowLobbyEvents":  httpx.NewLimiter("lobby event streams opened", opts.StreamRate, opts.StreamBurst, nil).Named("lobby-stream-open"),
		},
		streams: httpx.NewStreamSlots(opts.MaxStreams, opts.MaxStreamsPerClient, opts.MaxStreamsPerGame),
	}
	if s.specYAML, err = docs.YAML(spec); err != nil {
		return nil, nil, err
	}
	if s.docsHTML, err = docs.Render(spec, ProblemCodes(), problem.Anchor); err != nil {
		return nil, nil, err
	}
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
		metricsMW,                // sees the final status, the problems included
		httpx.LogRequests(s.log), // likewise
		s.problems,               // every error below becomes a problem+json answer
		httpx.RecoverPanic,       // a panic below becomes an error
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
	perOp := map[string][]echo.MiddlewareFunc{}
	for id, v := range validate {
		var mw []echo.MiddlewareFunc
		if l := s.limits[id]; l != nil {
			mw = append(mw, httpx.LimitRate(l))
		}
		// A practice puzzle read, attempted or solved by id may cost a
		// generation as asking for one does: the same limit.
		if l := s.limits["GetPracticePuzzle"]; l != nil && practiceByID[id] {
			mw = append(mw, httpx.LimitRateIf(l, func(c echo.Context) bool { return gen.IsPracticeID(c.Param("id")) }))
		}
		if id == batchOperation {
			perOp[id] = append(mw, requireNDJSON, v)
			continue
		}
		perOp[id] = append(mw, requireJSON, v)
	}
	// Every GET operation stands for its HEAD: the document declares no
	// HEAD operations.
	RegisterHandlersWithOptions(httpx.GetAndHead{Echo: e}, NewStrictHandler(s, []StrictMiddlewareFunc{s.withCaller}), RegisterHandlersOptions{OperationMiddlewares: perOp})
	// The reference browser client (api/web): the page at / and its files
	// under /assets/, using only the routes above.
	client := echo.WrapHandler(web.Handler())
	for _, path := range web.Routes {
		httpx.GetAndHead{Echo: e}.GET(path, client)
	}
	return e, nil
}

// practiceByID are the operations that take a practice puzzle's id.
var practiceByID = map[string]bool{"GetPuzzle": true, "SubmitPuzzleAttempt": true, "GetPuzzleSolution": true}

// Headers browsers may send and read across origins. Add here any header a
// new operation takes or returns.
var (
	// No Idempotency-Key: nothing reads it (see docs/api.md, "No
	// Idempotency-Key"), and a browser allowed to send it would expect it to
	// make creations safe to retry.
	corsAllowHeaders  = []string{echo.HeaderContentType, echo.HeaderAuthorization, echo.HeaderXRequestID, "If-Match", "If-None-Match", "Last-Event-ID", PlayerTokenHeader}
	corsExposeHeaders = []string{echo.HeaderXRequestID, echo.HeaderRetryAfter, echo.HeaderLocation, "ETag", "RateLimit", "RateLimit-Policy"}
)
