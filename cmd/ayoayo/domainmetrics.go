package main

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
)

// domainMetrics are the service's business figures: games made and ended,
// moves, the AI's thinking, puzzle attempts and rating updates. They are
// registered here, in one place; the domain packages know nothing of
// Prometheus: games and moves are counted by the store's writes that
// succeeded (observedGames), so a retried or replayed request, or two
// instances racing to end one game, count once; the AI's time and the
// attempts come through the services' hooks.
type domainMetrics struct {
	created  *prometheus.CounterVec   // category, opponent
	ended    *prometheus.CounterVec   // reason, category
	moves    *prometheus.CounterVec   // by
	aiThink  *prometheus.HistogramVec // level
	attempts *prometheus.CounterVec   // result
	ratings  *prometheus.CounterVec   // category
}

func newDomainMetrics(reg prometheus.Registerer) (*domainMetrics, error) {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "ayoayo", Name: name, Help: help}, labels)
	}
	m := &domainMetrics{
		created: counter("games_created_total", "Games created, by category (live, correspondence, untimed) and opponent (ai, human).", "category", "opponent"),
		ended: counter("games_ended_total", "Games finished, by how (majority, no_moves, repetition, resignation, timeout, agreement) or aborted (reason aborted), and category.",
			"reason", "category"),
		moves: counter("moves_total", "Moves stored, by who made them (person, ai).", "by"),
		aiThink: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "ayoayo", Name: "ai_think_seconds",
			Help:    "Time the AI took to choose a move in a game, by level (level 8 has --ai-move-time, each level below half of the one above).",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5}}, []string{"level"}),
		attempts: counter("puzzle_attempts_total", "Puzzle attempts answered, by result (solved, partial, wrong, gave_up).", "result"),
		ratings:  counter("rating_updates_total", "Rating updates: rated games ended and players' first attempts at puzzles, by category (live, correspondence, puzzle).", "category"),
	}
	for _, c := range []prometheus.Collector{m.created, m.ended, m.moves, m.aiThink, m.attempts, m.ratings} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// categoryOf names g's category as the metrics label it.
func categoryOf(g *games.Game) string {
	if c := g.Category(); c != "" {
		return string(c)
	}
	return "untimed"
}

// gameEnded counts g if its write ended it.
func (m *domainMetrics) gameEnded(g *games.Game, match *players.Match) {
	switch g.Status {
	case games.Finished:
		m.ended.WithLabelValues(g.Result.Reason.String(), categoryOf(g)).Inc()
	case games.Aborted:
		m.ended.WithLabelValues("aborted", categoryOf(g)).Inc()
	default:
		return
	}
	if match != nil && match.Category != "" {
		m.ratings.WithLabelValues(string(match.Category)).Inc()
	}
}

func (m *domainMetrics) movesStored(moves []games.Record) {
	for _, r := range moves {
		by := "person"
		if r.ByAI {
			by = "ai"
		}
		m.moves.WithLabelValues(by).Inc()
	}
}

// aiThought is games.Options.AIThought.
func (m *domainMetrics) aiThought(level int, took time.Duration) {
	m.aiThink.WithLabelValues(strconv.Itoa(level)).Observe(took.Seconds())
}

// attempted is puzzles.FeedOptions.Attempted.
func (m *domainMetrics) attempted(result puzzles.AttemptResult, rated bool) {
	m.attempts.WithLabelValues(string(result)).Inc()
	if rated {
		m.ratings.WithLabelValues(string(players.Puzzles)).Inc()
	}
}

// observedGames is the games service's store, counting the writes that
// create a game, store moves and end a game; it changes none of them.
type observedGames struct {
	games.Store
	m *domainMetrics
}

func (o observedGames) CreateGame(ctx context.Context, g games.Game, moves []games.Record) error {
	err := o.Store.CreateGame(ctx, g, moves)
	if err == nil {
		opponent := "human"
		if g.AI != nil {
			opponent = "ai"
		}
		o.m.created.WithLabelValues(categoryOf(&g), opponent).Inc()
		o.m.movesStored(moves)
	}
	return err
}

func (o observedGames) ApplyPlay(ctx context.Context, p games.Play) error {
	err := o.Store.ApplyPlay(ctx, p)
	if err == nil {
		o.m.movesStored(p.Moves)
		o.m.gameEnded(&p.Game, p.Match)
	}
	return err
}

func (o observedGames) Resign(ctx context.Context, id string, result engine.Result, at time.Time, match *players.Match) (games.Game, error) {
	g, err := o.Store.Resign(ctx, id, result, at, match)
	if err == nil {
		o.m.gameEnded(&g, match)
	}
	return g, err
}

func (o observedGames) End(ctx context.Context, e games.End) (games.Game, error) {
	g, err := o.Store.End(ctx, e)
	if err == nil {
		o.m.gameEnded(&g, e.Match)
	}
	return g, err
}
