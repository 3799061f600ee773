package api

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo-contrib/echoprometheus"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/fault"
)

// The operations endpoints: probes, metrics, the document and its rendering.

// readyTimeout bounds the database check of /readyz, so a stuck database
// makes the probe fail rather than hang.
const readyTimeout = 2 * time.Second

// GetLivez answers while the process serves HTTP at all.
func (s *Server) GetLivez(context.Context, oapi.GetLivezRequestObject) (oapi.GetLivezResponseObject, error) {
	return oapi.GetLivez200JSONResponse{Status: oapi.HealthStatusOk}, nil
}

// GetReadyz checks the database: 503 while it fails, with the store's own
// code (store_unavailable, storage_full) when the store named the failure,
// and 503 from the moment shutdown begins.
func (s *Server) GetReadyz(ctx context.Context, _ oapi.GetReadyzRequestObject) (oapi.GetReadyzResponseObject, error) {
	select {
	case <-s.opts.Stopping:
		return nil, newError(ErrNotReady, "the server is shutting down")
	default:
	}
	if s.opts.DB != nil {
		ctx, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		if err := s.opts.DB.Ping(ctx); err != nil {
			s.log.ErrorContext(ctx, "readiness check failed", "error", err.Error())
			if errors.Is(err, fault.ErrUnavailable) || errors.Is(err, fault.ErrStorageFull) {
				return nil, err // named by the store: its code says which failure
			}
			return nil, newError(ErrNotReady, "the database does not answer")
		}
	}
	return oapi.GetReadyz200JSONResponse{Status: oapi.HealthStatusOk}, nil
}

// Starting is the handler of a server whose database is not open yet: the
// process is alive (/livez answers 200), and everything else, /readyz
// included, is 503 not_ready with Retry-After, so balancers and clients
// wait for it rather than give up. Its 503s are expected, and not logged:
// the start logs each try to open the database instead.
func Starting() http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	quiet := slog.New(slog.DiscardHandler)
	live := func(c echo.Context) error { return c.JSON(http.StatusOK, oapi.Health{Status: oapi.HealthStatusOk}) }
	e.GET("/livez", live)
	e.HEAD("/livez", live)
	e.Any("/*", func(c echo.Context) error {
		writeProblem(c, newError(ErrNotReady, "the server is starting: it waits for its database"), quiet)
		return nil
	})
	return e
}

// GetMetrics writes the registry in the Prometheus text format.
func (s *Server) GetMetrics(context.Context, oapi.GetMetricsRequestObject) (oapi.GetMetricsResponseObject, error) {
	if s.opts.MetricsElsewhere {
		return nil, echo.ErrNotFound // served on the admin port only
	}
	return metricsResponse{s.opts.Metrics}, nil
}

type metricsResponse struct{ g prometheus.Gatherer }

func (m metricsResponse) VisitGetMetricsResponse(w http.ResponseWriter) error {
	var buf bytes.Buffer
	if err := echoprometheus.WriteGatheredMetrics(&buf, m.g); err != nil {
		return err // nothing written yet: answered as a problem
	}
	w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	w.WriteHeader(http.StatusOK)
	_, err := buf.WriteTo(w)
	return err
}

// GetOpenAPI serves the embedded document as YAML.
func (s *Server) GetOpenAPI(context.Context, oapi.GetOpenAPIRequestObject) (oapi.GetOpenAPIResponseObject, error) {
	d, err := s.documents()
	if err != nil {
		return nil, err
	}
	return oapi.GetOpenAPI200ApplicationyamlResponse{Body: bytes.NewReader(d.yaml), ContentLength: int64(len(d.yaml))}, nil
}

// GetDocs serves the reference page, rendered on the first request.
func (s *Server) GetDocs(context.Context, oapi.GetDocsRequestObject) (oapi.GetDocsResponseObject, error) {
	d, err := s.documents()
	if err != nil {
		return nil, err
	}
	return htmlResponse(d.html), nil
}

type htmlResponse []byte

func (h htmlResponse) VisitGetDocsResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// Everything the page needs is in it; forbid fetching anything else.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(h)
	return err
}
