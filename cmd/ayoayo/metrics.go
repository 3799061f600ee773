package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/postgres"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// poolStats is a database connection pool's state, alike for both stores.
type poolStats struct {
	max, inUse, idle int
	waits            int64   // acquisitions that had to wait for a connection
	waited           float64 // seconds spent so waiting, in all
}

// storePool reads the pool of either store, or says it has none.
func storePool(st store) (func() poolStats, bool) {
	switch s := st.(type) {
	case *postgres.Store:
		return func() poolStats {
			ps := s.Pool().Stat()
			return poolStats{max: int(ps.MaxConns()), inUse: int(ps.AcquiredConns()), idle: int(ps.IdleConns()),
				waits: ps.EmptyAcquireCount(), waited: ps.EmptyAcquireWaitTime().Seconds()}
		}, true
	case *sqlite.Store:
		return func() poolStats {
			ds := s.DB().Stats()
			return poolStats{max: ds.MaxOpenConnections, inUse: ds.InUse, idle: ds.Idle,
				waits: ds.WaitCount, waited: ds.WaitDuration.Seconds()}
		}, true
	}
	return nil, false
}

// poolCollectors are the pool's metrics, read when scraped: a pool that
// is always in use, or whose waits grow, is what a slow database looks
// like from the server.
func poolCollectors(read func() poolStats) []prometheus.Collector {
	gauge := func(name, help string, v func(poolStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "ayoayo", Name: name, Help: help}, func() float64 { return v(read()) })
	}
	counter := func(name, help string, v func(poolStats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "ayoayo", Name: name, Help: help}, func() float64 { return v(read()) })
	}
	return []prometheus.Collector{
		gauge("db_pool_max_connections", "Connections the database pool may open.", func(p poolStats) float64 { return float64(p.max) }),
		gauge("db_pool_in_use_connections", "Connections of the database pool in use now.", func(p poolStats) float64 { return float64(p.inUse) }),
		gauge("db_pool_idle_connections", "Open connections of the database pool idle now.", func(p poolStats) float64 { return float64(p.idle) }),
		counter("db_pool_waits_total", "Times a request waited for a connection of the database pool, none being free.", func(p poolStats) float64 { return float64(p.waits) }),
		counter("db_pool_wait_seconds_total", "Time requests spent waiting for a connection of the database pool.", func(p poolStats) float64 { return p.waited }),
	}
}

// registerServiceMetrics adds the AI's queue, the analyses' queue and the
// sweeper's work to reg, read when scraped.
func registerServiceMetrics(reg prometheus.Registerer, gs *games.Service, sw *games.Sweeper, cpu *budget.Budget) error {
	gauge := func(name, help string, v func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "ayoayo", Name: name, Help: help}, v)
	}
	counter := func(name, help string, v func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "ayoayo", Name: name, Help: help}, v)
	}
	cs := []prometheus.Collector{
		gauge("ai_searches_running", "AI searches for game sessions running now (--ai-concurrency bounds them).",
			func() float64 { r, _ := gs.AIQueue(); return float64(r) }),
		gauge("ai_moves_waiting", "Moves against the AI waiting for a unit of the CPU budget to search with; one that waits longer than --ai-move-time gets 503 ai_busy.",
			func() float64 { _, w := gs.AIQueue(); return float64(w) }),
		gauge("analyses_waiting", "Analyses (POST /v1/analyze) waiting for a unit of the CPU budget; one that waits a second gets 429.",
			func() float64 { return float64(cpu.Stats().Waiting[budget.Analysis]) }),
		counter("sweeps_total", "Looks for overdue games (clocks run out, games never started or abandoned) by this instance's sweeper.",
			func() float64 { return float64(sw.Stats().Looks) }),
		counter("sweep_failures_total", "Looks of the sweeper that failed, the store's failures or a game it could not end; retried at the next look.",
			func() float64 { return float64(sw.Stats().Failed) }),
		counter("sweep_games_total", "Overdue games the sweeper handled: ended here, or found ended by another instance.",
			func() float64 { return float64(sw.Stats().Games) }),
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
