package web_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/store/memory"
)

// practicePrefix starts the id of every practice puzzle the server makes.
var practicePrefix = fmt.Sprintf("x%d-", puzzles.Version)

// startServer starts the real API server, client included, on 127.0.0.1 with
// a fresh database, and returns its base URL.
func startServer(t *testing.T) string {
	t.Helper()
	st := memory.New()
	gen := puzzles.NewGenerator() // one endgame table for the feed and the pool
	// Closing stopping ends the event streams, so the server can close even
	// if a browser still follows a game.
	stopping := make(chan struct{})
	h, err := api.New(api.Options{
		DB:      st,
		Games:   games.NewService(st, games.Options{Stopping: stopping, EncodeEvent: api.EncodeEvent}),
		Puzzles: puzzles.NewFeed(st, puzzles.FeedOptions{Generator: gen, Practice: gen.Practice}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stopping) })
	return srv.URL
}
