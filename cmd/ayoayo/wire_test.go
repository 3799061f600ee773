package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"

	"github.com/ayoayo/ayoayo/internal/load"
)

// The tests speak to the server in raw JSON, to check the wire itself; the
// load tools (package load) go through the generated client instead.

// ltPosition, ltGame, ltSeat and ltAnswer are the few fields of the API's
// answers that the tests read.
type ltPosition struct {
	Pits     []int `json:"pits"`
	Captured struct {
		South int `json:"south"`
		North int `json:"north"`
	} `json:"captured"`
	ToMove string `json:"toMove"`
}

type ltGame struct {
	ID       string     `json:"id"`
	Status   string     `json:"status"`
	Ply      int        `json:"ply"`
	Position ltPosition `json:"position"`
	Version  int64      `json:"version"`
}

type ltSeat struct {
	Game  ltGame `json:"game"`
	Token string `json:"token"`
}

type ltAnswer struct {
	Game ltGame `json:"game"`
}

// ltPlay is one game in play: its state and both seats' tokens.
type ltPlay struct {
	game   ltGame
	tokens [2]string // by side
}

// callJSON sends body (if not nil) as JSON, with the seat's bearer token (if
// not empty), and decodes a 2xx answer into out (if not nil). It returns the
// status and the raw answer, so callers decide what a non-2xx means.
func callJSON(ctx context.Context, client *http.Client, method, url, token string, body, out any) (int, []byte, error) {
	status, _, data, err := sendJSON(ctx, client, method, url, token, body, out)
	return status, data, err
}

// sendJSON is callJSON that also returns the answer's headers.
func sendJSON(ctx context.Context, client *http.Client, method, url, token string, body, out any) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, resp.Header, data, err
	}
	if resp.StatusCode/100 == 2 && out != nil {
		return resp.StatusCode, resp.Header, data, json.Unmarshal(data, out)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// pickMove returns a random legal pit of the game's position.
func pickMove(p ltPosition, rng *rand.Rand) (int, error) {
	return load.RandomMove(p.Pits, p.Captured.South, p.Captured.North, p.ToMove, rng)
}

// loadtestServeFlags are the serve flags a load test needs.
const loadtestServeFlags = load.ServeFlags
