package web_test

import "testing"

// startServer starts the real API server with the client mounted and returns
// its base URL. The API server is not on this branch yet.
func startServer(t *testing.T) string {
	t.Helper()
	t.Skip("the API server is not on this branch yet")
	return ""
}
