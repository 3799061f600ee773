package web_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/api/store"
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
	h, err := api.New(api.Options{DB: st, Puzzles: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
