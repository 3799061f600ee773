package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
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
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
)

// Server timeouts. The write timeout leaves room for the longest analysis
// the API allows (10 s) plus encoding; idle keep-alive connections are
// closed after two minutes.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 120 * time.Second
)

// Default per-client-address rate limits: requests per minute, and the
// burst allowed at once. A person moves every second or two at the
// fastest, in a game against the AI or both seats at one screen; joins a
// game now and then; opens one event stream per game on screen, which a
// browser reopens 2 s after it drops. People may share an address (a
// household, a school, a mobile carrier's NAT), so each limit is tens of
// times what one person needs, and still far below a flood: a load test
// from one address plays thousands of moves a second.
const (
	defaultCreateRate, defaultCreateBurst = 60, 20
	defaultJoinRate, defaultJoinBurst     = 60, 20
	defaultMoveRate, defaultMoveBurst     = 600, 60 // 10 a second
	// As many at once as --max-streams-per-client holds by default, so a
	// reconnection of all of them (a restart) is not refused.
	defaultStreamRate, defaultStreamBurst = 120, api.DefaultMaxStreamsPerClient
	// A player asks for another practice puzzle every few seconds at the
	// fastest; making one is a generation, seconds of CPU at worst.
	defaultPracticeRate, defaultPracticeBurst = 60, 20
	// A person makes a player once per device at most; a row that stays
	// for ever must not be made by the million, so this is the tightest.
	defaultPlayerCreateRate, defaultPlayerCreateBurst = 10, 10
)

// defaultDBWait is how long a start waits for its database unless told:
// long enough for a database server started at the same time, or
// restarted, to come up.
const defaultDBWait = 60 * time.Second

// runServe serves the HTTP API until ctx is cancelled (SIGINT or SIGTERM),
// then stops taking connections, lets the requests in flight finish (for at
// most --shutdown-timeout) and closes the database.
func runServe(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	env := envDefaults{m: m}
	addr := fs.String("addr", m.env("AYOAYO_ADDR", ":8080"), "listen address `HOST:PORT`; port 0 picks a free port (env AYOAYO_ADDR)")
	db := fs.String("db", m.env("AYOAYO_DB", "./ayoayo.db"), dbHelp)
	origins := fs.String("cors-origins", m.env("AYOAYO_CORS_ORIGINS", "*"), "comma-separated `origins` browsers may call the API from, * for any (env AYOAYO_CORS_ORIGINS)")
	cpuBudget := fs.Int("cpu-budget", env.int("AYOAYO_CPU_BUDGET", 0), "heavy tasks (AI searches, analyses, puzzle generations, pieces of endgame table builds) that run at once, AI moves first, then analyses, then generation; 0 means one per CPU but one, at least one (env AYOAYO_CPU_BUDGET)")
	concurrency := fs.Int("analyze-concurrency", env.int("AYOAYO_ANALYZE_CONCURRENCY", 0), "analyses that run at once, within --cpu-budget; one that finds no room within a second gets 429; 0 means up to the whole budget (env AYOAYO_ANALYZE_CONCURRENCY)")
	bodyLimit := fs.Int64("body-limit", int64(env.int("AYOAYO_BODY_LIMIT", api.DefaultBodyLimit)), "largest request body in `bytes`, 413 beyond (env AYOAYO_BODY_LIMIT)")
	batchLimit := fs.Int64("batch-body-limit", int64(env.int("AYOAYO_BATCH_BODY_LIMIT", api.DefaultBatchBodyLimit)), "largest /v1/validate/batch body in `bytes`, 413 beyond; each line has --body-limit (env AYOAYO_BATCH_BODY_LIMIT)")
	batchLines := fs.Int("batch-max-lines", env.int("AYOAYO_BATCH_MAX_LINES", api.DefaultBatchMaxLines), "most `lines` in a /v1/validate/batch body, blank ones included, 413 beyond (env AYOAYO_BATCH_MAX_LINES)")
	logLevel := fs.String("log-level", m.env("AYOAYO_LOG_LEVEL", "info"), "log `level`: debug, info, warn or error (env AYOAYO_LOG_LEVEL)")
	puzzlesFrom := fs.String("puzzles-from", m.env("AYOAYO_PUZZLES_FROM", puzzles.DefaultFirstDay.Format(puzzles.DateLayout)), "the daily puzzle feed's first `day`, YYYY-MM-DD; earlier days are 404 (env AYOAYO_PUZZLES_FROM)")
	cutoverFlag := puzzleCutoverFlag(m, fs)
	adminAddr := fs.String("admin-addr", m.env("AYOAYO_ADMIN_ADDR", ""), "listen address `HOST:PORT` of the admin port: /metrics, /debug/pprof/ and the health checks, for the operator's network only; when set, the public port no longer serves /metrics. Empty: none (env AYOAYO_ADMIN_ADDR)")
	migrate := fs.Bool("migrate", env.bool("AYOAYO_MIGRATE", true), "apply the database's missing migrations at start; with --migrate=false a start refuses a schema that is behind (run 'ayoayo migrate' first). A schema newer than this binary is refused either way (env AYOAYO_MIGRATE)")
	dbWaitFor := fs.Duration("db-wait", env.duration("AYOAYO_DB_WAIT", defaultDBWait), "how long a start waits for an unavailable database, trying again with growing pauses and serving /livez (and a 503 /readyz) meanwhile; 0 tries once (env AYOAYO_DB_WAIT)")
	shutdown := fs.Duration("shutdown-timeout", env.duration("AYOAYO_SHUTDOWN_TIMEOUT", 15*time.Second), "how long requests in flight may take to finish at shutdown (env AYOAYO_SHUTDOWN_TIMEOUT)")
	aiTime := fs.Duration("ai-move-time", env.duration("AYOAYO_AI_MOVE_TIME", games.DefaultAIMoveTime), "time bound of an AI move at level 8, halved at each level below (env AYOAYO_AI_MOVE_TIME)")
	aiConcurrency := fs.Int("ai-concurrency", env.int("AYOAYO_AI_CONCURRENCY", 0), "AI searches for game sessions that run at once, within --cpu-budget, at most half of them for one client address; a move that waits longer than --ai-move-time gets 503 ai_busy; 0 means up to the whole budget (env AYOAYO_AI_CONCURRENCY)")
	practiceStock := fs.Int("practice-stock", env.int("AYOAYO_PRACTICE_STOCK", puzzles.DefaultStockSize), fmt.Sprintf("practice puzzles per filter made ahead, in idle time, into the database's stock (docs/practice-stock.md), at most %d; 0 makes none (env AYOAYO_PRACTICE_STOCK)", puzzles.PracticeWindow))
	practiceConcurrency := fs.Int("practice-concurrency", env.int("AYOAYO_PRACTICE_CONCURRENCY", 0), "practice puzzles made at once, within --cpu-budget; one that finds no room within a second gets 429 practice_busy; 0 means up to the whole budget (env AYOAYO_PRACTICE_CONCURRENCY)")
	createRate := fs.Int("game-create-rate", env.int("AYOAYO_GAME_CREATE_RATE", defaultCreateRate), "games one client address may create per minute, 429 beyond; 0 for no limit (env AYOAYO_GAME_CREATE_RATE)")
	createBurst := fs.Int("game-create-burst", env.int("AYOAYO_GAME_CREATE_BURST", defaultCreateBurst), "games one client address may create at once before the rate applies (env AYOAYO_GAME_CREATE_BURST)")
	playerRate := fs.Int("player-create-rate", env.int("AYOAYO_PLAYER_CREATE_RATE", defaultPlayerCreateRate), "players one client address may create per minute, 429 beyond; 0 for no limit (env AYOAYO_PLAYER_CREATE_RATE)")
	playerBurst := fs.Int("player-create-burst", env.int("AYOAYO_PLAYER_CREATE_BURST", defaultPlayerCreateBurst), "players one client address may create at once before the rate applies (env AYOAYO_PLAYER_CREATE_BURST)")
	joinRate := fs.Int("join-rate", env.int("AYOAYO_JOIN_RATE", defaultJoinRate), "games one client address may join per minute, 429 beyond; 0 for no limit (env AYOAYO_JOIN_RATE)")
	joinBurst := fs.Int("join-burst", env.int("AYOAYO_JOIN_BURST", defaultJoinBurst), "games one client address may join at once before the rate applies (env AYOAYO_JOIN_BURST)")
	moveRate := fs.Int("move-rate", env.int("AYOAYO_MOVE_RATE", defaultMoveRate), "moves one client address may send per minute, 429 beyond; 0 for no limit (env AYOAYO_MOVE_RATE)")
	moveBurst := fs.Int("move-burst", env.int("AYOAYO_MOVE_BURST", defaultMoveBurst), "moves one client address may send at once before the rate applies (env AYOAYO_MOVE_BURST)")
	streamRate := fs.Int("stream-rate", env.int("AYOAYO_STREAM_RATE", defaultStreamRate), "event streams one client address may open per minute, 429 beyond; 0 for no limit (env AYOAYO_STREAM_RATE)")
	streamBurst := fs.Int("stream-burst", env.int("AYOAYO_STREAM_BURST", defaultStreamBurst), "event streams one client address may open at once before the rate applies (env AYOAYO_STREAM_BURST)")
	practiceRate := fs.Int("practice-rate", env.int("AYOAYO_PRACTICE_RATE", defaultPracticeRate), "practice puzzles one client address may ask for per minute (by id too: /v1/puzzles/x...), 429 beyond; 0 for no limit (env AYOAYO_PRACTICE_RATE)")
	practiceBurst := fs.Int("practice-burst", env.int("AYOAYO_PRACTICE_BURST", defaultPracticeBurst), "practice puzzles one client address may ask for at once before the rate applies (env AYOAYO_PRACTICE_BURST)")
	trustedProxies := fs.String("trusted-proxies", m.env("AYOAYO_TRUSTED_PROXIES", ""), "comma-separated address `ranges` (CIDR, or single addresses) of the reverse proxies in front of the server; a request from one of them counts for the rightmost X-Forwarded-For address outside them; empty: the connection's address (env AYOAYO_TRUSTED_PROXIES)")
	trustProxy := fs.Bool("trust-proxy", m.env("AYOAYO_TRUST_PROXY", "") == "true", "refused: use --trusted-proxies (env AYOAYO_TRUST_PROXY=true, refused too)")
	maxStreams := fs.Int("max-streams", env.int("AYOAYO_MAX_STREAMS", api.DefaultMaxStreams), "event streams this instance serves at once, 503 beyond; -1 for no limit (env AYOAYO_MAX_STREAMS)")
	maxStreamsClient := fs.Int("max-streams-per-client", env.int("AYOAYO_MAX_STREAMS_PER_CLIENT", api.DefaultMaxStreamsPerClient), "event streams one client address may hold open on this instance, 429 beyond; -1 for no limit (env AYOAYO_MAX_STREAMS_PER_CLIENT)")
	maxStreamsGame := fs.Int("max-streams-per-game", env.int("AYOAYO_MAX_STREAMS_PER_GAME", api.DefaultMaxStreamsPerGame), "event streams of one game this instance serves at once, 503 beyond; -1 for no limit (env AYOAYO_MAX_STREAMS_PER_GAME)")
	instance := fs.String("instance", m.env("AYOAYO_INSTANCE", defaultInstance()), "`name` of this instance in every log line (env AYOAYO_INSTANCE); default HOST-PID")
	poll := fs.Duration("event-poll", env.duration("AYOAYO_EVENT_POLL", games.DefaultPollInterval), "how often a followed game is read again without news of a change; with PostgreSQL, changes are announced between instances at once (env AYOAYO_EVENT_POLL)")
	firstMove := fs.Int("first-move-seconds", env.int("AYOAYO_FIRST_MOVE_SECONDS", int(games.DefaultFirstMove/time.Second)), "`seconds` a side of a game with a clock has for its first move (its clock runs from its second turn on); past them the game is aborted (env AYOAYO_FIRST_MOVE_SECONDS)")
	firstMoveCorr := fs.Duration("first-move-correspondence", env.duration("AYOAYO_FIRST_MOVE_CORRESPONDENCE", games.DefaultFirstMoveCorrespondence), "the same window in correspondence games (env AYOAYO_FIRST_MOVE_CORRESPONDENCE)")
	waitingExpiry := fs.Duration("waiting-expiry", env.duration("AYOAYO_WAITING_EXPIRY", games.DefaultWaitingExpiry), "how long a game against a person waits for someone to join before it is aborted (env AYOAYO_WAITING_EXPIRY)")
	idleExpiry := fs.Duration("idle-expiry", env.duration("AYOAYO_IDLE_EXPIRY", games.DefaultIdleExpiry), "how long an untimed game may go without a move before the side to move loses by timeout (env AYOAYO_IDLE_EXPIRY)")
	sweepInterval := fs.Duration("sweep-interval", env.duration("AYOAYO_SWEEP_INTERVAL", games.DefaultSweepInterval), "longest sleep between two looks for overdue games: the delay with which a deadline set by another instance that went away is applied (env AYOAYO_SWEEP_INTERVAL)")
	retainDays := fs.Int("retain-finished", env.int("AYOAYO_RETAIN_FINISHED", 0), "delete finished and aborted games this many `days` after their end, in small batches; 0 keeps them for ever (env AYOAYO_RETAIN_FINISHED)")
	heartbeat := fs.Duration("event-heartbeat", env.duration("AYOAYO_EVENT_HEARTBEAT", api.DefaultEventHeartbeat), "interval of keep-alive comments on idle event streams (env AYOAYO_EVENT_HEARTBEAT)")
	tables := tableFilesFlag(fs, m, "tablebase", "AYOAYO_TABLEBASE", "endgame table `FILE` (from ayoayo tablebase build) that /v1/analyze and AI levels 7-8 use for positions under its rules; repeatable")
	tableBuild := fs.Int("tablebase-build", env.int("AYOAYO_TABLEBASE_BUILD", defaultTableSeeds), fmt.Sprintf("build in the background at start a table of every position with up to this many `seeds` on the board under the default rules, unless a --tablebase file has one as large; 0 builds none, at most %d (env AYOAYO_TABLEBASE_BUILD)", tablebase.MaxSeedsLimit))
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := errors.Join(env.errs...); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("%w: log level %q is not debug, info, warn or error", errUsage, *logLevel)
	}
	feedStart, err := puzzles.ParseDate(*puzzlesFrom)
	if err != nil {
		return fmt.Errorf("%w: --puzzles-from: %v", errUsage, err)
	}
	cutover, err := parseCutover(*cutoverFlag)
	if err != nil {
		return err
	}
	if *practiceStock < 0 || *practiceStock > puzzles.PracticeWindow {
		return fmt.Errorf("%w: --practice-stock is 0 to %d", errUsage, puzzles.PracticeWindow)
	}
	if min(*cpuBudget, *concurrency, *aiConcurrency, *practiceConcurrency) < 0 || *bodyLimit < 0 || *shutdown < 0 || *dbWaitFor < 0 {
		return fmt.Errorf("%w: --cpu-budget, --analyze-concurrency, --ai-concurrency, --practice-concurrency, --body-limit, --shutdown-timeout and --db-wait cannot be negative", errUsage)
	}
	if *batchLimit < 1 || *batchLines < 1 {
		return fmt.Errorf("%w: --batch-body-limit and --batch-max-lines must be positive", errUsage)
	}
	if *aiTime <= 0 || *heartbeat <= 0 || *poll <= 0 {
		return fmt.Errorf("%w: --ai-move-time, --event-heartbeat and --event-poll must be positive", errUsage)
	}
	if *firstMove < 1 || *firstMoveCorr <= 0 || *waitingExpiry <= 0 || *idleExpiry <= 0 || *sweepInterval <= 0 {
		return fmt.Errorf("%w: --first-move-seconds, --first-move-correspondence, --waiting-expiry, --idle-expiry and --sweep-interval must be positive", errUsage)
	}
	if *retainDays < 0 {
		return fmt.Errorf("%w: --retain-finished cannot be negative (0 keeps every game)", errUsage)
	}
	if min(*createRate, *joinRate, *moveRate, *streamRate, *practiceRate, *playerRate) < 0 || min(*createBurst, *joinBurst, *moveBurst, *streamBurst, *practiceBurst, *playerBurst) < 1 {
		return fmt.Errorf("%w: --game-create-rate, --join-rate, --move-rate, --stream-rate, --practice-rate and --player-create-rate cannot be negative (0 is no limit), their bursts must be at least 1", errUsage)
	}
	if *tableBuild < 0 || *tableBuild > tablebase.MaxSeedsLimit {
		return fmt.Errorf("%w: --tablebase-build %d, want 0 (none) to %d", errUsage, *tableBuild, tablebase.MaxSeedsLimit)
	}
	if *trustProxy {
		return fmt.Errorf("%w: --trust-proxy (AYOAYO_TRUST_PROXY) is no more: it let every client choose its own address; name the proxies in front of the server with --trusted-proxies CIDR,... (AYOAYO_TRUSTED_PROXIES)", errUsage)
	}
	proxies, err := parseRanges(*trustedProxies)
	if err != nil {
		return fmt.Errorf("%w: --trusted-proxies: %v", errUsage, err)
	}
	// Every line names the instance, so the logs of several instances
	// behind one balancer can be told apart.
	logHandler := slog.NewJSONHandler(m.Stderr, &slog.HandlerOptions{Level: level}).WithAttrs([]slog.Attr{slog.String("instance", *instance)})
	log := slog.New(logHandler)
	build := readBuildInfo()
	log.Info("starting", "version", build.Version, "commit", build.Commit, "date", build.Date, "go", build.GoVersion)

	// One budget of CPU for every heavy task of every service, so that
	// together they leave room for the cheap requests.
	cpu := budget.New(cmp.Or(*cpuBudget, budget.SizeFor(runtime.GOMAXPROCS(0))))
	log.Info("cpu budget", "units", cpu.Size(), "cores", runtime.GOMAXPROCS(0))

	// A table file that does not open stops the start, naming the file.
	endgames, err := openTables(tables.files, log)
	if err != nil {
		return err
	}
	// Closed last: searches still running are waited for before the files
	// are unmapped.
	defer endgames.Close()
	var building sync.WaitGroup
	defer building.Wait()
	// A start that fails later stops the build rather than waiting for it.
	buildCtx, stopBuild := context.WithCancel(ctx)
	defer stopBuild()
	// The daily feed and the practice pool share one generator, so the
	// endgame table their puzzles are proved with is built once (shared with
	// the analyses' when it is the same size), in the background from the
	// start, not in the first request that needs it.
	gen := puzzleGenerator(endgames)
	// Started here, before any request, so that a generation waits for the
	// build before it takes a unit of the budget the build needs.
	gen.StartEndgameTable(cpuGate(cpu))
	buildTable(buildCtx, cpu, endgames, *tableBuild, gen, log, &building)

	// The port is taken before the database is opened, so that while the
	// start waits for the database the process answers: /livez 200, and
	// 503 with Retry-After for /readyz and the rest. The API's handler
	// takes over once the database is open.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// The registry exists before the database opens, so the admin port
	// shows the process while the start waits.
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := registerBuildInfo(metrics, build); err != nil {
		return err
	}
	var current atomic.Pointer[http.Handler]
	starting := api.Starting()
	current.Store(&starting)
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logHandler, slog.LevelWarn),
	}
	// Event streams never end by themselves; closing stopping ends them as
	// the graceful shutdown begins, so Shutdown does not wait for its timeout.
	stopping := make(chan struct{})
	srv.RegisterOnShutdown(func() { close(stopping) })
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if *adminAddr != "" {
		adminLn, err := net.Listen("tcp", *adminAddr)
		if err != nil {
			return fmt.Errorf("--admin-addr: %w", err)
		}
		admin := &http.Server{
			Handler:           api.Admin(metrics, srv.Handler),
			ReadHeaderTimeout: readHeaderTimeout,
			// No write timeout: a CPU profile or a trace takes as long as
			// it is asked to (30 s by default).
			IdleTimeout: idleTimeout,
			ErrorLog:    slog.NewLogLogger(logHandler, slog.LevelWarn),
		}
		go func() { _ = admin.Serve(adminLn) }()
		// Closed at once when serve returns: nothing on it needs draining.
		defer admin.Close()
		log.Info("admin listening", "addr", adminLn.Addr().String())
	}
	// Whatever ends the start from here on, the server stops with it.
	defer srv.Close()

	// One clock for every part of the server.
	now := time.Now
	log.Info("opening the database", "addr", ln.Addr().String(), "db", redactDB(*db), "wait", dbWaitFor.String())
	wait := dbWait{wait: *dbWaitFor, now: now, after: time.After, log: log}
	st, err := wait.open(ctx, func(ctx context.Context) (store, error) { return openStoreWith(ctx, *db, now, log, *migrate) })
	if err != nil && ctx.Err() != nil {
		log.Info("stopped while waiting for the database", "error", err.Error())
		return nil
	}
	if err != nil {
		return err
	}
	defer st.Close()
	if err := registerStoreMetrics(metrics, st); err != nil {
		return err
	}

	// Closed as shutdown begins, before the drain: /readyz answers 503 from
	// then on.
	draining := make(chan struct{})
	gameService := games.NewService(st, games.Options{
		AIMoveTime:    *aiTime,
		Budget:        cpu,
		AIConcurrency: *aiConcurrency,
		Now:           now,
		Logger:        log,
		Stopping:      stopping,
		EncodeEvent:   api.EncodeEvent,
		// A store several instances share carries each one's changes to
		// the others' followers (PostgreSQL: LISTEN/NOTIFY).
		Changes:      changesOf(st),
		PollInterval: *poll,
		Endgames:     endgames,
		Expiries: games.Expiries{FirstMove: time.Duration(*firstMove) * time.Second, FirstMoveCorrespondence: *firstMoveCorr,
			Waiting: *waitingExpiry, Idle: *idleExpiry},
		SweepInterval:  *sweepInterval,
		RetainFinished: time.Duration(*retainDays) * 24 * time.Hour,
	})
	// Deadlines end games with nobody calling, on every instance; the
	// first look applies those that passed while the server was down. The
	// sweeper and the listener for other instances' changes stop, and are
	// waited for, before the store closes, however the start ends.
	background, stopBackground := context.WithCancel(ctx)
	var sweeping sync.WaitGroup
	defer sweeping.Wait()
	defer stopBackground()
	sweeping.Go(func() { gameService.Listen(background) })
	sweeping.Go(func() { gameService.Sweep(background) })
	if err := registerServiceMetrics(metrics, gameService, cpu); err != nil {
		return err
	}
	// The daily feed, and the practice pool from version 2's own half of
	// the positions.
	feed := puzzles.NewFeed(st, puzzles.FeedOptions{First: feedStart, Cutover: cutover, Now: now, Generator: gen, Practice: gen.Practice,
		Budget: cpu, PracticeConcurrency: *practiceConcurrency, Stock: st, StockSize: *practiceStock, Log: log})
	if stocker, err := feed.NewStocker(*instance); err == nil { // none with --practice-stock 0
		sweeping.Go(func() { stocker.Run(background) })
	}
	handler, err := api.New(api.Options{
		Logger:              log,
		DB:                  st,
		Stopping:            draining,
		Metrics:             metrics,
		MetricsElsewhere:    *adminAddr != "",
		CORSOrigins:         splitList(*origins),
		BodyLimit:           *bodyLimit,
		BatchBodyLimit:      *batchLimit,
		BatchMaxLines:       *batchLines,
		Analyses:            analysis.New(analysis.Options{Endgames: endgames, Budget: cpu, Concurrency: *concurrency}),
		Budget:              cpu,
		Games:               gameService,
		GameCreateRate:      *createRate,
		GameCreateBurst:     *createBurst,
		JoinRate:            *joinRate,
		JoinBurst:           *joinBurst,
		MoveRate:            *moveRate,
		MoveBurst:           *moveBurst,
		StreamRate:          *streamRate,
		StreamBurst:         *streamBurst,
		TrustedProxies:      proxies,
		EventHeartbeat:      *heartbeat,
		MaxStreams:          *maxStreams,
		MaxStreamsPerClient: *maxStreamsClient,
		MaxStreamsPerGame:   *maxStreamsGame,
		Puzzles:             feed,
		PracticeRate:        *practiceRate,
		PracticeBurst:       *practiceBurst,
		Players:             players.NewService(st, now),
		PlayerCreateRate:    *playerRate,
		PlayerCreateBurst:   *playerBurst,
	})
	if err != nil {
		return err
	}
	var apiHandler http.Handler = handler
	current.Store(&apiHandler)
	// Tests and scripts start the server on port 0 and read the real
	// address from this line, which says the API is served.
	log.Info("listening", "addr", ln.Addr().String(), "db", redactDB(*db))

	select {
	case err := <-served:
		return err // the listener failed; nothing to drain
	case <-ctx.Done():
	}

	close(draining)
	log.Info("shutting down", "timeout", shutdown.String())
	sctx, cancel := context.WithTimeout(context.Background(), *shutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("requests still running at the shutdown timeout were cut off", "error", err.Error())
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	building.Wait() // ctx has ended: a build in progress gives up
	sweeping.Wait() // and the sweeper stops before the store closes
	if err := endgames.Close(); err != nil {
		return fmt.Errorf("close the endgame tables: %w", err)
	}
	if err := st.Close(); err != nil {
		log.Error("closing the database failed", "error", err.Error())
		return fmt.Errorf("close the database: %w", err)
	}
	log.Info("stopped")
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

// envDefaults reads typed flag defaults from the environment, collecting
// the values that do not parse so the command can report them all.
type envDefaults struct {
	m    *Main
	errs []error
}

func (e *envDefaults) int(name string, def int) int {
	v := e.m.env(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s=%q is not a whole number", name, v))
		return def
	}
	return n
}

func (e *envDefaults) bool(name string, def bool) bool {
	v := e.m.env(name, "")
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s=%q is neither true nor false", name, v))
		return def
	}
	return b
}

func (e *envDefaults) duration(name string, def time.Duration) time.Duration {
	v := e.m.env(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s=%q is not a duration such as 15s", name, v))
		return def
	}
	return d
}
