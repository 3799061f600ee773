package api

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// The speed target: POST /v1/evaluate over loopback at no less than 55 % of
// the request rate of a bare echo handler that answers a fixed JSON body of
// the same size (docs/performance.md has the measured figures). Both
// servers run in the same benchmark, their requests interleaved, so machine
// load weighs on both alike. Reported: bare-req/s, api-req/s and ratio
// (api/bare).
//
//	go test ./api -run '^$' -bench EvaluateOverLoopback -benchtime 3s

const benchBody = `{"position":{"pits":[4,4,4,4,4,4,4,4,4,4,4,4],"captured":{"south":0,"north":0},"toMove":"south"},"pit":0}`

// benchServers starts the API, as served (request logs at info to a
// discarding handler, metrics, validation), and the bare handler.
func benchServers(b *testing.B) (apiURL, bareURL string) {
	b.Helper()
	e, err := New(Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	apiSrv := httptest.NewServer(e)
	b.Cleanup(apiSrv.Close)
	waitForDocuments(b, e)
	answer := post(b, http.DefaultClient, apiSrv.URL+"/v1/evaluate")

	bare := echo.New()
	bare.POST("/v1/evaluate", func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, answer)
	})
	bareSrv := httptest.NewServer(bare)
	b.Cleanup(bareSrv.Close)
	if got := post(b, http.DefaultClient, bareSrv.URL+"/v1/evaluate"); len(got) != len(answer) {
		b.Fatalf("bare answer %d bytes, API %d", len(got), len(answer))
	}
	return apiSrv.URL + "/v1/evaluate", bareSrv.URL + "/v1/evaluate"
}

// waitForDocuments asks for /openapi.yaml, so the server's rendering of
// its documents, on the first request for them, is not measured.
func waitForDocuments(b *testing.B, h http.Handler) {
	b.Helper()
	if rec := serve(h, httptest.NewRequest(http.MethodGet, "/openapi.yaml", nil)); rec.Code != http.StatusOK {
		b.Fatalf("/openapi.yaml: status %d", rec.Code)
	}
}

func post(b *testing.B, c *http.Client, url string) []byte {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(benchBody)))
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		b.Fatalf("status %d, %v: %s", res.StatusCode, err, body)
	}
	return body
}

// One client, requests one after another, alternating between the servers.
func BenchmarkEvaluateOverLoopback(b *testing.B) {
	apiURL, bareURL := benchServers(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	var tAPI, tBare time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		post(b, client, bareURL)
		t1 := time.Now()
		post(b, client, apiURL)
		tAPI += time.Since(t1)
		tBare += t1.Sub(t0)
		n++
	}
	report(b, n, n, tBare, tAPI)
}

// Several clients at once, in alternating phases of a fixed number of
// requests per server: the throughput of a loaded server.
func BenchmarkEvaluateOverLoopbackParallel(b *testing.B) {
	apiURL, bareURL := benchServers(b)
	const clients, phase = 4, 200
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	burst := func(url string) time.Duration {
		var left atomic.Int64
		left.Store(phase)
		start := time.Now()
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					post(b, client, url)
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	var tAPI, tBare time.Duration
	n := 0
	for b.Loop() {
		tBare += burst(bareURL)
		tAPI += burst(apiURL)
		n += phase
	}
	report(b, n, n, tBare, tAPI)
}

func report(b *testing.B, nBare, nAPI int, tBare, tAPI time.Duration) {
	b.Helper()
	bare := float64(nBare) / tBare.Seconds()
	api := float64(nAPI) / tAPI.Seconds()
	b.ReportMetric(bare, "bare-req/s")
	b.ReportMetric(api, "api-req/s")
	b.ReportMetric(api/bare, "ratio")
}

// The API's own cost per request, without the network: for profiling
// (-cpuprofile, -memprofile) the middleware, the validator and the handler.
func BenchmarkEvaluateInProcess(b *testing.B) {
	e, err := New(Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	waitForDocuments(b, e)
	for b.Loop() {
		req := postJSON("/v1/evaluate", benchBody)
		req.Header.Set("Accept-Encoding", "gzip") // as Go's client and browsers send it
		if rec := serve(e, req); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
