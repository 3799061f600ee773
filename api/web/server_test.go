package web_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/ayoayo/ayoayo/api"
	store "github.com/ayoayo/ayoayo/store/sqlite"
)

// startServer starts the real API server, client included, on 127.0.0.1 with
// a fresh database, and returns its base URL.
func startServer(t *testing.T) string {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "ayoayo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// Closing stopping ends the event streams, so the server can close even
	// if a browser still follows a game.
	stopping := make(chan struct{})
	h, err := api.New(api.Options{DB: st, Games: st, Puzzles: st, Stopping: stopping})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stopping) })
	return srv.URL
}
