package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/getkin/kin-openapi/openapi3"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/idempotency"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/ahead"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/tournaments"
)

// runServe serves the HTTP API until ctx is cancelled (SIGINT or SIGTERM),
// then stops taking connections, lets the requests in flight finish (for at
// most --shutdown-timeout) and closes the database.
func runServe(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	var c serveConfig
	c.declare(fs)
	if err := m.parse(fs, args, envPrefix); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if err := c.check(); err != nil {
		return err
	}
	s := &serving{cfg: &c, now: time.Now}
	defer s.undo()
	return s.run(ctx, m.Stderr)
}

// serving is what serve's steps start and hand on to the later steps and to
// the shutdown. Wiring runs one way: budget and endgame tables, listeners,
// store, services, API.
type serving struct {
	cfg *serveConfig
	now func() time.Time // one clock for every part of the server

	logHandler slog.Handler
	log        *slog.Logger
	build      buildInfo
	cpu        *budget.Budget
	endgames   *search.Endgames
	gen        *puzzles.Generator
	metrics    *prometheus.Registry

	ln      net.Listener
	srv     *http.Server
	current atomic.Pointer[http.Handler] // what srv serves: 503s until the API is ready
	served  chan error
	apiUp   chan struct{} // closed once the API is served
	// stopping closes as the graceful shutdown begins (event streams end);
	// draining closes just before it (/readyz answers 503).
	stopping, draining chan struct{}

	st                 store
	domain             *domainMetrics
	games              *games.Service
	hub                *games.Hub
	building, sweeping sync.WaitGroup
	// background is the context of the work that runs beside the requests
	// (the sweeper, the listener, the practice stocker): it ends with
	// serve's, and serve waits for that work (sweeping) before it closes
	// the tables and the store.
	background context.Context

	// document is the API's document, loaded in the background at start.
	document chan loadedDocument

	// onExit's functions, run last first when serve returns, however the
	// start ended.
	exits []func()
}

// loadedDocument is what api.LoadDocument returned.
type loadedDocument struct {
	doc *openapi3.T
	err error
}

// onExit runs f when serve returns, before what was registered earlier.
func (s *serving) onExit(f func()) { s.exits = append(s.exits, f) }

func (s *serving) undo() {
	for i := len(s.exits) - 1; i >= 0; i-- {
		s.exits[i]()
	}
}

// run starts each part in turn, serves until ctx ends, and shuts down.
func (s *serving) run(ctx context.Context, logTo io.Writer) error {
	s.startLog(logTo)
	// Each step's wall clock goes into the listening line (startMs), so a
	// slow start says where its time went.
	var steps []any
	step := time.Now()
	took := func(name string) {
		now := time.Now()
		steps = append(steps, slog.Float64(name, float64(now.Sub(step).Microseconds())/1000))
		step = now
	}
	// The API's document takes a few hundred milliseconds of CPU to load:
	// loaded beside the tables and the database, not after them.
	s.document = make(chan loadedDocument, 1)
	go func() {
		doc, err := api.LoadDocument()
		s.document <- loadedDocument{doc, err}
	}()
	if err := s.startTables(ctx); err != nil {
		return err
	}
	took("tables")
	if err := s.listen(); err != nil {
		return err
	}
	took("listen")
	open, err := s.openStore(ctx)
	if !open {
		return err
	}
	took("database")
	if err := s.startGames(ctx); err != nil {
		return err
	}
	took("games")
	if err := s.startAPI(); err != nil {
		return err
	}
	took("api")
	// Tests and scripts start the server on port 0 and read the real
	// address from this line, which says the API is served.
	s.log.Info("listening", "addr", s.ln.Addr().String(), "db", redactDB(s.cfg.DB), slog.Group("startMs", steps...))
	close(s.apiUp)
	return s.serve(ctx)
}

// startLog makes the structured log and says which build starts.
func (s *serving) startLog(w io.Writer) {
	// Every line names the instance, so the logs of several instances
	// behind one balancer can be told apart.
	s.logHandler = slog.NewJSONHandler(w, &slog.HandlerOptions{Level: s.cfg.level}).WithAttrs([]slog.Attr{slog.String("instance", s.cfg.Instance)})
	s.log = slog.New(s.logHandler)
	s.build = readBuildInfo()
	s.log.Info("starting", "version", s.build.Version, "commit", s.build.Commit, "date", s.build.Date, "go", s.build.GoVersion)
}

// startTables makes the budget of CPU, opens the endgame tables, and starts
// building the one the puzzles need (and --tablebase-build asks for) in the
// background.
func (s *serving) startTables(ctx context.Context) error {
	// One budget of CPU for every heavy task of every service, so that
	// together they leave room for the cheap requests.
	s.cpu = newBudget(s.cfg.CPUBudget)
	s.log.Info("cpu budget", "units", s.cpu.Size(), "cores", cores())

	// A table file that does not open stops the start, naming the file.
	endgames, err := openTables(s.cfg.Tables.files, s.log)
	if err != nil {
		return err
	}
	s.endgames = endgames
	// Closed last: searches still running are waited for before the files
	// are unmapped.
	s.onExit(func() { _ = endgames.Close() })
	s.onExit(s.building.Wait)
	// A start that fails later stops the build rather than waiting for it.
	buildCtx, stopBuild := context.WithCancel(ctx)
	s.onExit(stopBuild)
	// The daily feed and the practice pool share one generator, so the
	// endgame table their puzzles are proved with is built once (shared with
	// the analyses' when it is the same size), in the background from the
	// start, not in the first request that needs it.
	s.gen = puzzleGenerator(endgames, s.cpu.Size())
	// Started here, before any request, so that a generation waits for the
	// build before it takes a unit of the budget the build needs; it stops
	// with the server (buildCtx), so a server that stops leaves no build
	// running in its process.
	// Their work waits for the API to be served (apiUp), so the start
	// has the cores to itself.
	s.apiUp = make(chan struct{})
	s.gen.StartEndgameTable(buildCtx, cpuGate(s.cpu, s.apiUp))
	buildTable(buildCtx, s.cpu, s.apiUp, endgames, s.cfg.TableBuildTo, s.gen, s.log, &s.building)
	return nil
}

// listen takes the public port, and the admin port if asked, before the
// database is opened, so that while the start waits for the database the
// process answers: /livez 200, and 503 with Retry-After for /readyz and the
// rest. The API's handler takes over once the database is open.
func (s *serving) listen() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	// The registry exists before the database opens, so the admin port
	// shows the process while the start waits.
	s.metrics = prometheus.NewRegistry()
	s.metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := registerBuildInfo(s.metrics, s.build); err != nil {
		return err
	}
	starting := api.Starting()
	s.current.Store(&starting)
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*s.current.Load()).ServeHTTP(w, r) }),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.logHandler, slog.LevelWarn),
	}
	// Event streams never end by themselves; closing stopping ends them as
	// the graceful shutdown begins, so Shutdown does not wait for its timeout.
	s.stopping = make(chan struct{})
	s.srv.RegisterOnShutdown(func() { close(s.stopping) })
	s.served = make(chan error, 1)
	go func() { s.served <- s.srv.Serve(ln) }()
	if s.cfg.AdminAddr != "" {
		if err := s.listenAdmin(); err != nil {
			return err
		}
	}
	// Whatever ends the start from here on, the server stops with it.
	s.onExit(func() { _ = s.srv.Close() })
	return nil
}

// listenAdmin serves the metrics, the profiler and the health checks on
// --admin-addr.
func (s *serving) listenAdmin() error {
	ln, err := net.Listen("tcp", s.cfg.AdminAddr)
	if err != nil {
		return fmt.Errorf("--admin-addr: %w", err)
	}
	admin := &http.Server{
		Handler:           api.Admin(s.metrics, s.srv.Handler),
		ReadHeaderTimeout: readHeaderTimeout,
		// No write timeout: a CPU profile or a trace takes as long as
		// it is asked to (30 s by default).
		IdleTimeout: idleTimeout,
		ErrorLog:    slog.NewLogLogger(s.logHandler, slog.LevelWarn),
	}
	go func() { _ = admin.Serve(ln) }()
	// Closed at once when serve returns: nothing on it needs draining.
	s.onExit(func() { _ = admin.Close() })
	s.log.Info("admin listening", "addr", ln.Addr().String())
	return nil
}

// openStore opens the database, waiting for it for up to --db-wait. It
// reports whether the store is open: a start stopped while it waited is not
// open, and no error.
func (s *serving) openStore(ctx context.Context) (bool, error) {
	s.log.Info("opening the database", "addr", s.ln.Addr().String(), "db", redactDB(s.cfg.DB), "wait", s.cfg.DBWait.String())
	wait := dbWait{wait: s.cfg.DBWait, now: s.now, after: time.After, log: s.log}
	st, err := wait.open(ctx, func(ctx context.Context) (store, error) {
		return openStoreWith(ctx, s.cfg.DB, s.now, s.log, s.cfg.Migrate)
	})
	if err != nil && ctx.Err() != nil {
		s.log.Info("stopped while waiting for the database", "error", err.Error())
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.st = st
	s.onExit(func() { _ = st.Close() })
	return true, registerStoreMetrics(s.metrics, st)
}

// startGames makes the parts of game sessions over the store: the follow
// hub, the session service that tells it of each change, and the sweeper
// that ends overdue games through the service; and starts what runs with
// nobody calling: the sweeper and the hub's listener for other instances'
// changes.
func (s *serving) startGames(ctx context.Context) error {
	c := s.cfg
	var err error
	if s.domain, err = newDomainMetrics(s.metrics); err != nil {
		return err
	}
	s.hub = games.NewHub(s.st, games.HubOptions{
		// A store several instances share carries each one's changes to
		// the others' followers (PostgreSQL: LISTEN/NOTIFY).
		Changes:      changesOf(s.st),
		PollInterval: c.EventPoll,
		Stopping:     s.stopping,
		Logger:       s.log,
	})
	s.games = games.NewService(observedGames{s.st, s.domain}, s.cpu, games.Options{
		AIMoveTime:    c.AIMoveTime,
		AIConcurrency: c.AIConcurrency,
		Now:           s.now,
		Logger:        s.log,
		Changed:       s.hub,
		Endgames:      s.endgames,
		AIThought:     s.domain.aiThought,
		Expiries: games.Expiries{FirstMove: time.Duration(c.FirstMoveSeconds) * time.Second, FirstMoveCorrespondence: c.FirstMoveCorrespondence,
			Waiting: c.WaitingExpiry, Idle: c.IdleExpiry},
	})
	// The other instances' changes, as the store carries them (the news
	// of each play), keep the service's cache of the games in play up to
	// date.
	s.hub.OnHeard(s.games.Heard)
	sweeper := games.NewSweeper(s.games, games.SweepOptions{
		Interval:       c.SweepEvery,
		RetainFinished: time.Duration(c.RetainFinishedDays) * 24 * time.Hour,
		Logger:         s.log,
	})
	// Deadlines end games with nobody calling, on every instance; the
	// first look applies those that passed while the server was down. The
	// sweeper and the listener for other instances' changes stop, and are
	// waited for, before the store closes, however the start ends.
	background, stopBackground := context.WithCancel(ctx)
	s.background = background
	s.onExit(s.sweeping.Wait)
	s.onExit(stopBackground)
	s.sweeping.Go(func() { s.hub.Listen(background) })
	s.sweeping.Go(func() { sweeper.Run(background) })
	return registerServiceMetrics(s.metrics, s.games, sweeper, s.cpu)
}

// reviewPoll is how often the review worker looks for reviews queued by
// other instances, or left by a crashed one, when none was asked for here.
const reviewPoll = 5 * time.Second

// startAPI makes the other services and the API's handler, and serves it
// in place of the 503s of the start.
func (s *serving) startAPI() error {
	c := s.cfg
	// The daily feed, and the practice pool from version 2's own half of
	// the positions.
	// The puzzles shipped in the binary: a fresh database serves the daily
	// puzzle and each stocked practice filter at once.
	shipped, err := ahead.Load()
	if err != nil {
		return err
	}
	feed := puzzles.NewFeed(s.st, s.cpu, puzzles.FeedOptions{First: c.feedStart, Cutover: c.cutover, Now: s.now, Generator: s.gen, Practice: s.gen.Practice,
		PracticeConcurrency: c.PracticeConcurrency, Stock: s.st, StockSize: c.PracticeStock, Log: s.log,
		Attempted: s.domain.attempted, Ahead: shipped})
	if stocker, err := feed.NewStocker(c.Instance); err == nil { // ErrNoStock with --practice-stock 0
		// Background work: stopped, and waited for, before the tables and
		// the store close.
		s.sweeping.Go(func() { stocker.Run(s.background) })
	}
	// The lobby: its expiry of seeks and challenges and its listener for
	// other instances' events are background work like the sweeper's.
	lob := lobby.NewService(s.st, lobby.Options{Games: s.games, Now: s.now, SeekTTL: c.SeekTTL, ChallengeTTL: c.ChallengeTTL, Changes: lobbyChangesOf(s.st),
		PollInterval: c.EventPoll, Stopping: s.stopping, Logger: s.log})
	// The opening explorer indexes each finished rated game once: at
	// once when this instance ends it, and by a catch-up at the start and
	// every so often for the games other instances ended, or that a stop
	// left unindexed.
	// Its engine scores take one unit of the analyses' share at most, and
	// none that is not free at once: a search runs beside the requests it
	// serves, never in place of them.
	analyses := analysis.New(s.cpu, analysis.Options{Endgames: s.endgames, Concurrency: c.AnalyzeConcurrency})
	exp := explorer.New(s.st, explorer.Options{Logger: s.log,
		Analyzer: analysis.New(s.cpu, analysis.Options{Endgames: s.endgames, Concurrency: 1, Wait: -1})})
	// Tournaments: every instance ticks the due events (each pairing is
	// one conditional write), copies a result at once when it ends a
	// game, and tells players and followers through the lobby's streams.
	ps := players.NewService(s.st, s.now)
	tourns := tournaments.NewService(s.st, tournaments.Options{Games: s.games, Notify: tournamentNews{lob}, Now: s.now, Logger: s.log,
		Authorize: ps.Authorize})
	// Its players hear gameFinish; the explorer indexes it; its event
	// copies its result.
	s.games.OnEnded(endNotifiers{lob, exp, tourns})
	s.sweeping.Go(func() { lob.Listen(s.background) })
	s.sweeping.Go(func() { lob.Run(s.background, time.Second) })
	s.sweeping.Go(func() { tourns.Run(s.background, time.Second) })
	// Reviews: this instance's worker takes queued reviews from the store
	// every instance shares, one at a time, at the budget's review
	// priority; it is background work like the sweeper's.
	reviews := review.NewService(s.st, s.games, review.New(s.cpu, review.Options{Endgames: s.endgames, Concurrency: s.cpu.Size()}),
		review.ServiceOptions{Now: s.now, Owner: c.Instance, Log: s.log})
	s.sweeping.Go(func() { reviews.Run(s.background, reviewPoll) })
	s.sweeping.Go(func() { _ = exp.Run(s.background) })
	s.draining = make(chan struct{})
	doc := <-s.document
	if doc.err != nil {
		return doc.err
	}
	handler, err := api.New(api.Options{
		Document:            doc.doc,
		Logger:              s.log,
		DB:                  s.st,
		Stopping:            s.draining,
		Metrics:             s.metrics,
		MetricsElsewhere:    !c.MetricsPublic,
		RequestLog:          c.requestLog,
		CORSOrigins:         splitList(c.CORSOrigins),
		BodyLimit:           c.BodyLimit,
		BatchBodyLimit:      c.BatchBodyLimit,
		BatchMaxLines:       c.BatchMaxLines,
		Analyses:            analyses,
		Budget:              s.cpu,
		Games:               s.games,
		Hub:                 s.hub,
		Exports:             games.NewExporter(s.st),
		RateLimits:          c.rateLimits(),
		Now:                 s.now,
		TrustedProxies:      c.proxies,
		EventHeartbeat:      c.EventHeartbeat,
		MaxStreams:          c.MaxStreams,
		MaxStreamsPerClient: c.MaxStreamsPerClient,
		MaxStreamsPerGame:   c.MaxStreamsPerGame,
		Puzzles:             feed,
		Players:             ps,
		Idempotency:         idempotency.New(s.st, idempotency.Options{Now: s.now}),
		Lobby:               lob,
		Tournaments:         tourns,
		Reviews:             reviews,
		Explorer:            exp,
	})
	if err != nil {
		return err
	}
	var apiHandler http.Handler = handler
	s.current.Store(&apiHandler)
	return nil
}

// endNotifiers hear of a game's end one after the other: the lobby, the
// explorer, then the tournaments.
type endNotifiers []games.EndNotifier

func (ns endNotifiers) Ended(ctx context.Context, g games.Game) {
	for _, n := range ns {
		n.Ended(ctx, g)
	}
}

// tournamentNews passes the tournaments' news on as lobby events: an
// event's to its own stream, a new game to its player's.
type tournamentNews struct{ lob *lobby.Service }

func (n tournamentNews) Tournament(ctx context.Context, news []tournaments.News) {
	evs := make([]lobby.Event, len(news))
	for i, x := range news {
		evs[i] = lobby.Event{Stream: lobby.TournamentStream(x.Tournament), Kind: lobby.EventKind(x.Kind), GameID: x.GameID,
			TournamentID: x.Tournament, At: x.At}
	}
	n.lob.Emit(ctx, evs...)
}

func (n tournamentNews) TournamentGame(ctx context.Context, player, tournament, gameID string, side engine.Side, at time.Time) {
	n.lob.Emit(ctx, lobby.Event{Stream: player, Kind: lobby.EventTournamentGame, GameID: gameID, Side: side,
		TournamentID: tournament, At: at})
}

// serve waits for ctx to end (or the listener to fail), then shuts down:
// /readyz turns 503, requests in flight get --shutdown-timeout to finish,
// the background work stops, and the tables and the store close.
func (s *serving) serve(ctx context.Context) error {
	select {
	case err := <-s.served:
		return err // the listener failed; nothing to drain
	case <-ctx.Done():
	}

	close(s.draining)
	s.log.Info("shutting down", "timeout", s.cfg.Shutdown.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.Shutdown)
	defer cancel()
	if err := s.srv.Shutdown(sctx); err != nil {
		s.log.Warn("requests still running at the shutdown timeout were cut off", "error", err.Error())
		_ = s.srv.Close()
	}
	if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	s.building.Wait() // ctx has ended: a build in progress gives up
	s.sweeping.Wait() // and the sweeper stops before the store closes
	if err := s.endgames.Close(); err != nil {
		return fmt.Errorf("close the endgame tables: %w", err)
	}
	if err := s.st.Close(); err != nil {
		s.log.Error("closing the database failed", "error", err.Error())
		return fmt.Errorf("close the database: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// changesOf is the store's channel of game changes between instances, if it
// has one.
func changesOf(st store) games.Changes {
	if c, ok := st.(games.Changes); ok {
		return c
	}
	return nil
}

// lobbyChangesOf is the carrier of lobby events between instances when the
// store has one (PostgreSQL), else nil.
func lobbyChangesOf(st store) lobby.Changes {
	if c, ok := st.(lobby.Changes); ok {
		return c
	}
	return nil
}

// defaultInstance names this process: its host and process id.
func defaultInstance() string {
	host, err := os.Hostname()
	if err != nil {
		host = "ayoayo"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}

// splitList reads a comma-separated list, ignoring blanks.
func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// parseRanges reads a comma-separated list of address ranges in CIDR
// notation; a single address is the range of just that address.
func parseRanges(list string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, s := range splitList(list) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("%q is neither an address range such as 10.0.0.0/8 nor an address", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p = p.Masked(); !p.IsValid() {
			return nil, fmt.Errorf("%q is not an address range", s)
		}
		out = append(out, &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())})
	}
	return out, nil
}
