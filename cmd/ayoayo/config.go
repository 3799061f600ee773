package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// serveConfig is everything serve is told. Each field is one flag, declared
// once in declare; each flag also reads its AYOAYO_* variable, named after
// it (see envName), so adding a setting is a field and one line in declare.
type serveConfig struct {
	Addr, AdminAddr, DB, Instance, LogLevel string
	RequestLog                              string
	MetricsPublic                           bool
	CORSOrigins, TrustedProxies             string
	PuzzlesFrom, PuzzleCutover              string
	Migrate, TrustProxy                     bool
	DBWait, Shutdown                        time.Duration

	CPUBudget, AnalyzeConcurrency, AIConcurrency, PracticeConcurrency int
	PracticeStock                                                     int
	BodyLimit, BatchBodyLimit                                         int64
	BatchMaxLines                                                     int

	AIMoveTime                            time.Duration
	FirstMoveSeconds                      int
	FirstMoveCorrespondence               time.Duration
	WaitingExpiry, IdleExpiry, SweepEvery time.Duration
	RetainFinishedDays                    int
	SeekTTL, ChallengeTTL                 time.Duration

	// RateLimits has a pair of flags for each row of api.Limits, by its
	// Name (see declareRateLimits).
	RateLimits map[string]*api.RateLimit

	MaxStreams, MaxStreamsPerClient, MaxStreamsPerGame int
	EventPoll, EventHeartbeat                          time.Duration

	Tables       tableFiles
	TableBuildTo int

	// Read from the fields above by check.
	level              slog.Level
	requestLog         api.RequestLog
	feedStart, cutover time.Time
	proxies            []*net.IPNet
}

// Server timeouts. The write timeout leaves room for the longest analysis
// the API allows (10 s) plus encoding; idle keep-alive connections are
// closed after two minutes.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 120 * time.Second
)

// defaultDBWait is how long a start waits for its database unless told:
// long enough for a database server started at the same time, or
// restarted, to come up.
const defaultDBWait = 60 * time.Second

// declare declares serve's flags on fs, one line each, filling c. The
// defaults and texts are docs/operations.md's table; each text names the variable
// the flag reads (TestServeFlagsAndEnvironment checks that they agree).
func (c *serveConfig) declare(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", ":8080", "listen address `HOST:PORT`; port 0 picks a free port (env AYOAYO_ADDR)")
	fs.StringVar(&c.DB, "db", "./ayoayo.db", dbHelp)
	fs.StringVar(&c.CORSOrigins, "cors-origins", "*", "comma-separated `origins` browsers may call the API from, * for any (env AYOAYO_CORS_ORIGINS)")
	fs.IntVar(&c.CPUBudget, "cpu-budget", 0, "heavy tasks (AI searches, analyses, puzzle generations, pieces of endgame table builds) that run at once, AI moves first, then analyses, then generation; 0 means one per CPU but one, at least one (env AYOAYO_CPU_BUDGET)")
	fs.IntVar(&c.AnalyzeConcurrency, "analyze-concurrency", 0, "analyses that run at once, within --cpu-budget; one that finds no room within a second gets 429; 0 means up to the whole budget (env AYOAYO_ANALYZE_CONCURRENCY)")
	fs.Int64Var(&c.BodyLimit, "body-limit", api.DefaultBodyLimit, "largest request body in `bytes`, 413 beyond (env AYOAYO_BODY_LIMIT)")
	fs.Int64Var(&c.BatchBodyLimit, "batch-body-limit", api.DefaultBatchBodyLimit, "largest /v1/validate/batch body in `bytes`, 413 beyond; each line has --body-limit (env AYOAYO_BATCH_BODY_LIMIT)")
	fs.IntVar(&c.BatchMaxLines, "batch-max-lines", api.DefaultBatchMaxLines, "most `lines` in a /v1/validate/batch body, blank ones included, 413 beyond (env AYOAYO_BATCH_MAX_LINES)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log `level`: debug, info, warn or error (env AYOAYO_LOG_LEVEL)")
	fs.StringVar(&c.PuzzlesFrom, "puzzles-from", puzzles.DefaultFirstDay.Format(gen.DateLayout), "the daily puzzle feed's first `day`, YYYY-MM-DD; earlier days are 404 (env AYOAYO_PUZZLES_FROM)")
	fs.StringVar(&c.PuzzleCutover, "puzzle-cutover", gen.DefaultCutover.Format(gen.DateLayout), puzzleCutoverHelp)
	fs.StringVar(&c.AdminAddr, "admin-addr", "", "listen address `HOST:PORT` of the admin port: /metrics, /debug/pprof/ and the health checks, for the operator's network only. Empty: none (env AYOAYO_ADMIN_ADDR)")
	fs.BoolVar(&c.MetricsPublic, "metrics-public", false, "serve /metrics on the public port too; without it /metrics is on the admin port only (env AYOAYO_METRICS_PUBLIC)")
	fs.StringVar(&c.RequestLog, "request-log", string(api.RequestLogAll), "which requests get a log line: all, errors (status 400 and above) or none; faults are logged either way (env AYOAYO_REQUEST_LOG)")
	fs.BoolVar(&c.Migrate, "migrate", true, "apply the database's missing migrations at start; with --migrate=false a start refuses a schema that is behind (run 'ayoayo migrate' first). A schema newer than this binary is refused either way (env AYOAYO_MIGRATE)")
	fs.DurationVar(&c.DBWait, "db-wait", defaultDBWait, "how long a start waits for an unavailable database, trying again with growing pauses and serving /livez (and a 503 /readyz) meanwhile; 0 tries once (env AYOAYO_DB_WAIT)")
	fs.DurationVar(&c.Shutdown, "shutdown-timeout", 15*time.Second, "how long requests in flight may take to finish at shutdown (env AYOAYO_SHUTDOWN_TIMEOUT)")
	fs.DurationVar(&c.AIMoveTime, "ai-move-time", games.DefaultAIMoveTime, "time bound of an AI move at level 8, halved at each level below (env AYOAYO_AI_MOVE_TIME)")
	fs.IntVar(&c.AIConcurrency, "ai-concurrency", 0, "AI searches for game sessions that run at once, within --cpu-budget, at most half of them for one client address; a move that waits longer than --ai-move-time gets 503 ai_busy; 0 means up to the whole budget (env AYOAYO_AI_CONCURRENCY)")
	fs.IntVar(&c.PracticeStock, "practice-stock", puzzles.DefaultStockSize, fmt.Sprintf("practice puzzles per filter made ahead, in idle time, into the database's stock (docs/practice-stock.md), at most %d; 0 makes none (env AYOAYO_PRACTICE_STOCK)", gen.PracticeWindow))
	fs.IntVar(&c.PracticeConcurrency, "practice-concurrency", 0, "practice puzzles made at once, within --cpu-budget; one that finds no room within a second gets 429 practice_busy; 0 means up to the whole budget (env AYOAYO_PRACTICE_CONCURRENCY)")
	c.declareRateLimits(fs)
	fs.StringVar(&c.TrustedProxies, "trusted-proxies", "", "comma-separated address `ranges` (CIDR, or single addresses) of the reverse proxies in front of the server; a request from one of them counts for the rightmost X-Forwarded-For address outside them; empty: the connection's address (env AYOAYO_TRUSTED_PROXIES)")
	fs.BoolVar(&c.TrustProxy, "trust-proxy", false, "refused: use --trusted-proxies (env AYOAYO_TRUST_PROXY=true, refused too)")
	fs.IntVar(&c.MaxStreams, "max-streams", api.DefaultMaxStreams, "event streams this instance serves at once, 503 beyond; -1 for no limit (env AYOAYO_MAX_STREAMS)")
	fs.IntVar(&c.MaxStreamsPerClient, "max-streams-per-client", api.DefaultMaxStreamsPerClient, "event streams one client address may hold open on this instance, 429 beyond; -1 for no limit (env AYOAYO_MAX_STREAMS_PER_CLIENT)")
	fs.IntVar(&c.MaxStreamsPerGame, "max-streams-per-game", api.DefaultMaxStreamsPerGame, "event streams of one game this instance serves at once, 503 beyond; -1 for no limit (env AYOAYO_MAX_STREAMS_PER_GAME)")
	fs.StringVar(&c.Instance, "instance", defaultInstance(), "`name` of this instance in every log line (env AYOAYO_INSTANCE); default HOST-PID")
	fs.DurationVar(&c.EventPoll, "event-poll", games.DefaultPollInterval, "how often a followed game is read again without news of a change; with PostgreSQL, changes are announced between instances at once (env AYOAYO_EVENT_POLL)")
	fs.IntVar(&c.FirstMoveSeconds, "first-move-seconds", int(games.DefaultFirstMove/time.Second), "`seconds` a side of a game with a clock has for its first move (its clock runs from its second turn on); past them the game is aborted (env AYOAYO_FIRST_MOVE_SECONDS)")
	fs.DurationVar(&c.FirstMoveCorrespondence, "first-move-correspondence", games.DefaultFirstMoveCorrespondence, "the same window in correspondence games (env AYOAYO_FIRST_MOVE_CORRESPONDENCE)")
	fs.DurationVar(&c.WaitingExpiry, "waiting-expiry", games.DefaultWaitingExpiry, "how long a game against a person waits for someone to join before it is aborted (env AYOAYO_WAITING_EXPIRY)")
	fs.DurationVar(&c.IdleExpiry, "idle-expiry", games.DefaultIdleExpiry, "how long an untimed game may go without a move before the side to move loses by timeout (env AYOAYO_IDLE_EXPIRY)")
	fs.DurationVar(&c.SweepEvery, "sweep-interval", games.DefaultSweepInterval, "longest sleep between two looks for overdue games: the delay with which a deadline set by another instance that went away is applied (env AYOAYO_SWEEP_INTERVAL)")
	fs.IntVar(&c.RetainFinishedDays, "retain-finished", 0, "delete finished and aborted games this many `days` after their end, in small batches; 0 keeps them for ever (env AYOAYO_RETAIN_FINISHED)")
	fs.DurationVar(&c.SeekTTL, "seek-ttl", lobby.DefaultSeekTTL, "how long a seek with a clock lives while its owner holds no event stream (GET /v1/players/me/events) (env AYOAYO_SEEK_TTL)")
	fs.DurationVar(&c.ChallengeTTL, "challenge-ttl", lobby.DefaultChallengeTTL, "how long a challenge with a clock lives while its challenger holds no event stream (env AYOAYO_CHALLENGE_TTL)")
	fs.DurationVar(&c.EventHeartbeat, "event-heartbeat", api.DefaultEventHeartbeat, "interval of keep-alive comments on idle event streams (env AYOAYO_EVENT_HEARTBEAT)")
	fs.Var(&c.Tables, "tablebase", serveTablesHelp)
	fs.IntVar(&c.TableBuildTo, "tablebase-build", defaultTableSeeds, fmt.Sprintf("build in the background at start a table of every position with up to this many `seeds` on the board under the default rules, unless a --tablebase file has one as large; 0 builds none, at most %d (env AYOAYO_TABLEBASE_BUILD)", tablebase.MaxSeedsLimit))
}

// declareRateLimits declares --FLAG-rate and --FLAG-burst for each row of
// api.Limits, with the row's defaults and its words in their help: a new
// limit is a row there, not lines here.
func (c *serveConfig) declareRateLimits(fs *flag.FlagSet) {
	c.RateLimits = map[string]*api.RateLimit{}
	for _, l := range api.Limits() {
		r := l.Default
		c.RateLimits[l.Name] = &r
		aside := ""
		if l.Aside != "" {
			aside = " (" + l.Aside + ")"
		}
		rate, burst := l.Flag+"-rate", l.Flag+"-burst"
		fs.IntVar(&r.Rate, rate, l.Default.Rate, fmt.Sprintf("%s per minute%s, 429 beyond; 0 for no limit (env %s)", l.Who, aside, envName(envPrefix, rate)))
		fs.IntVar(&r.Burst, burst, l.Default.Burst, fmt.Sprintf("%s at once before the rate applies (env %s)", l.Who, envName(envPrefix, burst)))
	}
}

// rateLimits are the limits as api.Options takes them.
func (c *serveConfig) rateLimits() api.RateLimits {
	out := api.RateLimits{}
	for name, r := range c.RateLimits {
		out[name] = *r
	}
	return out
}

// serveTablesHelp describes serve's --tablebase.
const serveTablesHelp = "endgame table `FILE` (from ayoayo tablebase build) that /v1/analyze and AI levels 7-8 use for positions under its rules; repeatable" + tablesEnvHelp

// check reads the settings that need more than the flag package's parsing
// and refuses values out of range, as usage mistakes.
func (c *serveConfig) check() error {
	if err := c.level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return fmt.Errorf("%w: log level %q is not debug, info, warn or error", errUsage, c.LogLevel)
	}
	var err error
	if c.requestLog, err = api.ParseRequestLog(c.RequestLog); err != nil {
		return fmt.Errorf("%w: --request-log: %v", errUsage, err)
	}
	if c.feedStart, err = gen.ParseDate(c.PuzzlesFrom); err != nil {
		return fmt.Errorf("%w: --puzzles-from: %v", errUsage, err)
	}
	if c.cutover, err = parseCutover(c.PuzzleCutover); err != nil {
		return err
	}
	if c.PracticeStock < 0 || c.PracticeStock > gen.PracticeWindow {
		return fmt.Errorf("%w: --practice-stock is 0 to %d", errUsage, gen.PracticeWindow)
	}
	if min(c.CPUBudget, c.AnalyzeConcurrency, c.AIConcurrency, c.PracticeConcurrency) < 0 || c.BodyLimit < 0 || c.Shutdown < 0 || c.DBWait < 0 {
		return fmt.Errorf("%w: --cpu-budget, --analyze-concurrency, --ai-concurrency, --practice-concurrency, --body-limit, --shutdown-timeout and --db-wait cannot be negative", errUsage)
	}
	if c.BatchBodyLimit < 1 || c.BatchMaxLines < 1 {
		return fmt.Errorf("%w: --batch-body-limit and --batch-max-lines must be positive", errUsage)
	}
	if c.AIMoveTime <= 0 || c.EventHeartbeat <= 0 || c.EventPoll <= 0 || c.SeekTTL <= 0 || c.ChallengeTTL <= 0 {
		return fmt.Errorf("%w: --ai-move-time, --event-heartbeat, --event-poll, --seek-ttl and --challenge-ttl must be positive", errUsage)
	}
	if c.FirstMoveSeconds < 1 || c.FirstMoveCorrespondence <= 0 || c.WaitingExpiry <= 0 || c.IdleExpiry <= 0 || c.SweepEvery <= 0 {
		return fmt.Errorf("%w: --first-move-seconds, --first-move-correspondence, --waiting-expiry, --idle-expiry and --sweep-interval must be positive", errUsage)
	}
	if c.RetainFinishedDays < 0 {
		return fmt.Errorf("%w: --retain-finished cannot be negative (0 keeps every game)", errUsage)
	}
	for _, l := range api.Limits() {
		if r := c.RateLimits[l.Name]; r.Rate < 0 || r.Burst < 1 {
			return fmt.Errorf("%w: --%s-rate cannot be negative (0 is no limit), --%s-burst must be at least 1", errUsage, l.Flag, l.Flag)
		}
	}
	if c.TableBuildTo < 0 || c.TableBuildTo > tablebase.MaxSeedsLimit {
		return fmt.Errorf("%w: --tablebase-build %d, want 0 (none) to %d", errUsage, c.TableBuildTo, tablebase.MaxSeedsLimit)
	}
	if c.TrustProxy {
		return fmt.Errorf("%w: --trust-proxy (AYOAYO_TRUST_PROXY) is no more: it let every client choose its own address; name the proxies in front of the server with --trusted-proxies CIDR,... (AYOAYO_TRUSTED_PROXIES)", errUsage)
	}
	if c.proxies, err = parseRanges(c.TrustedProxies); err != nil {
		return fmt.Errorf("%w: --trusted-proxies: %v", errUsage, err)
	}
	return nil
}
