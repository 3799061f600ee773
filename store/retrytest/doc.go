// Package retrytest holds a test only: that a move request retried on a
// database written before answers were rebuilt instead of stored (SQLite
// migration 0009, PostgreSQL 0007) gets byte for byte the answer that was
// stored for it. It needs the stores, the game service and the api's
// encoder at once, which no one of those packages may import together.
package retrytest
