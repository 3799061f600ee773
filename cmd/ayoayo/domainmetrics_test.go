package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
)

// /metrics counts what the games and puzzles did: a game against the AI
// created, its moves (the person's and the AI's, with the AI's time by
// level), its end by resignation.
func TestDomainMetrics(t *testing.T) {
	srv := serveOn(t, filepath.Join(t.TempDir(), "metrics.db"), "--metrics-public")
	ctx := t.Context()
	client := &http.Client{Timeout: 60 * time.Second}
	call := func(method, path, token string, body, out any) {
		t.Helper()
		st, data, err := callJSON(ctx, client, method, srv.url+path, token, body, out)
		if err != nil || st >= 300 {
			t.Fatalf("%s %s: %d %s %v", method, path, st, data, err)
		}
	}
	var seat ltSeat
	call(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "ai", "level": 1}}, &seat)
	call(http.MethodPost, "/v1/games/"+seat.Game.ID+"/moves", seat.Token, map[string]int{"ply": 0, "pit": 2}, nil)
	call(http.MethodPost, "/v1/games/"+seat.Game.ID+"/resign", seat.Token, nil, nil)
	// (A puzzle attempt would need a generation, up to a minute on a
	// loaded machine: TestAttemptedHook in puzzles and
	// TestRatingUpdatesCounted below cover its counting.)

	res, err := client.Get(srv.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(b)
	for _, want := range []string{
		`ayoayo_games_created_total{category="untimed",opponent="ai"} 1`,
		`ayoayo_moves_total{by="person"} 1`,
		`ayoayo_moves_total{by="ai"} 1`,
		`ayoayo_ai_think_seconds_count{level="1"} 1`,
		`ayoayo_games_ended_total{category="untimed",reason="resignation"} 1`,
		`ayoayo_http_requests_total{code="201",method="POST",route="/v1/games"} 1`,
		`ayoayo_sweeps_total `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// Rating updates count a rated game's end and a first attempt's rating,
// by category; an unrated end and an aborted game count none.
func TestRatingUpdatesCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newDomainMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	live := games.Game{Status: games.Finished, TimeControl: games.TimeControl{Kind: games.Live}}
	live.Result.Reason = engine.ByMajority
	m.gameEnded(&live, &players.Match{Category: players.Live})
	m.gameEnded(&live, nil)
	m.gameEnded(&games.Game{Status: games.Aborted}, nil)
	m.gameEnded(&games.Game{Status: games.Active}, &players.Match{Category: players.Live}) // not an end
	m.attempted(puzzles.AttemptSolved, true)
	m.attempted(puzzles.AttemptWrong, false)
	tests := []struct {
		name, metric, labels string
		want                 float64
	}{
		{"live ratings", "ayoayo_rating_updates_total", "category=live", 1},
		{"puzzle ratings", "ayoayo_rating_updates_total", "category=puzzle", 1},
		{"live games ended by majority", "ayoayo_games_ended_total", "category=live,reason=majority", 2},
		{"aborted", "ayoayo_games_ended_total", "category=untimed,reason=aborted", 1},
		{"wrong attempts", "ayoayo_puzzle_attempts_total", "result=wrong", 1},
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	value := func(metric, labels string) float64 {
		for _, f := range families {
			if f.GetName() != metric {
				continue
			}
			for _, m := range f.GetMetric() {
				var ls []string
				for _, l := range m.GetLabel() {
					ls = append(ls, l.GetName()+"="+l.GetValue())
				}
				if strings.Join(ls, ",") == labels {
					return m.GetCounter().GetValue()
				}
			}
		}
		return 0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(tt.metric, tt.labels); got != tt.want {
				t.Fatalf("%s{%s} = %v, want %v", tt.metric, tt.labels, got, tt.want)
			}
		})
	}
}
