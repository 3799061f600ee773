package web_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/store/memory"
	"github.com/ayoayo/ayoayo/tournaments"
)

// practicePrefix starts the id of every practice puzzle the server makes.
var practicePrefix = "x2-" // the server below makes version 2 practice puzzles

// firstMove is the test server's window for a side's first move in a timed
// game: long enough for the page to load and play, short enough to wait for.
const firstMove = 8 * time.Second

// testServer is the server startServer starts: its base URL, and what a
// test seeds or drives behind the API (finished games in the store, the
// explorer's indexing).
type testServer struct {
	url      string
	store    *memory.Store
	explorer *explorer.Service
}

// startServer starts the real API server, client included, on 127.0.0.1 with
// a fresh database.
func startServer(t *testing.T) testServer {
	t.Helper()
	st := memory.New()
	g := puzzles.NewGenerator(testWorkers) // one endgame table for the feed and the pool
	// Closing stopping ends the event streams, so the server can close even
	// if a browser still follows a game.
	stopping := make(chan struct{})
	// A short first-move window, so that the page sees a game aborted
	// within the test; the sweeper ends overdue games as the server does.
	hub := games.NewHub(st, games.HubOptions{Stopping: stopping})
	svc := games.NewService(st, testCPU(), games.Options{Changed: hub, Expiries: games.Expiries{FirstMove: firstMove}})
	sweeper := games.NewSweeper(svc, games.SweepOptions{})
	// The lobby, as the server wires it: seeks pair into games of svc, and
	// its players hear of their games' ends.
	lob := lobby.NewService(st, lobby.Options{Games: svc, Stopping: stopping, PollInterval: time.Second})
	// The opening explorer, its scores waited for (the page's numbers are
	// what is tested here); a test indexes the games it seeds by CatchUp.
	exp := explorer.New(st, explorer.Options{EngineWait: -1,
		Analyzer: analysis.New(testCPU(), analysis.Options{Concurrency: 1})})
	// Tournaments, as the server wires them: news through the lobby's
	// streams, a result copied when a game of an event ends, the due
	// events looked at every second.
	tourns := tournaments.NewService(st, tournaments.Options{Games: svc, Notify: tournamentNews{lob}})
	svc.OnEnded(endNotifiers{lob, exp, tourns})
	// Reviews, with a small search a ply: the page is what is tested here.
	reviews := review.NewService(st, svc, review.New(testCPU(), review.Options{Nodes: 5000}), review.ServiceOptions{Owner: "web"})
	h, err := api.New(api.Options{
		Reviews: reviews,
		DB:      st,
		Games:   svc,
		Hub:     hub,
		// Version 2, the cheaper search: the page is what is tested here.
		Puzzles:     puzzles.NewFeed(st, testCPU(), puzzles.FeedOptions{Generator: g, Practice: g.Practice, PracticeVersion: 2}),
		Players:     players.NewService(st, nil),
		Lobby:       lob,
		Tournaments: tourns,
		Explorer:    exp,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	sweeping, stopSweeping := context.WithCancel(context.Background())
	swept := make(chan struct{})
	reviewing := make(chan struct{})
	ticking := make(chan struct{})
	go func() {
		defer close(ticking)
		tourns.Run(sweeping, time.Second)
	}()
	go func() {
		defer close(swept)
		sweeper.Run(sweeping)
	}()
	go func() {
		defer close(reviewing)
		reviews.Run(sweeping, 100*time.Millisecond)
	}()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stopping) })
	t.Cleanup(func() {
		stopSweeping()
		<-swept
		<-reviewing
		<-ticking
	})
	return testServer{url: srv.URL, store: st, explorer: exp}
}

// endNotifiers hear of a game's end one after the other, as the server's do.
type endNotifiers []games.EndNotifier

func (ns endNotifiers) Ended(ctx context.Context, g games.Game) {
	for _, n := range ns {
		n.Ended(ctx, g)
	}
}

// tournamentNews passes the tournaments' news on as lobby events, as the
// server's does: an event's to its own stream, a new game to its player's.
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
