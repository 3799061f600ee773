package api

import (
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus"
)

// Admin is the handler of the admin port (serve --admin-addr), which an
// operator keeps off the public network: /metrics, the Go profiler under
// /debug/pprof/, and /livez and /readyz, which health answers (the public
// handler, so that both ports give the same verdict). Anything else is 404.
func Admin(metrics prometheus.Gatherer, health http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if err := (metricsResponse{metrics}).VisitGetMetricsResponse(w); err != nil {
			http.Error(w, "gathering the metrics failed", http.StatusInternalServerError)
		}
	}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("GET /livez", health)
	mux.Handle("GET /readyz", health)
	return mux
}
