//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// tournamentGameJSON is a game of GET /v1/tournaments/{id}/games.
type tournamentGameJSON struct {
	ID        string    `json:"id"`
	South     string    `json:"south"`
	North     string    `json:"north"`
	Done      bool      `json:"done"`
	Aborted   bool      `json:"aborted"`
	Winner    *string   `json:"winner"`
	CreatedAt time.Time `json:"createdAt"`
	EndedAt   time.Time `json:"endedAt"`
}

// standingJSON is a line of GET /v1/tournaments/{id}/results.
type standingJSON struct {
	Player struct{ ID string } `json:"player"`
	Points int                 `json:"points"`
	Games  int                 `json:"games"`
}

// TestTournamentTwoInstances runs an arena of 200 players over two `ayoayo
// serve` processes on one PostgreSQL schema, both ticking it, while bots
// play every game they are given (two moves, then a resignation or an
// agreed draw), and one instance is SIGKILLed and started again halfway:
// every game is counted once, nobody is in two games at once, and both
// instances' standings are the recount of the games.
func TestTournamentTwoInstances(t *testing.T) {
	endToEnd(t, "builds and runs two server binaries")
	dsn := postgresDSN(t)
	bin := buildBinary(t, t.TempDir())
	n := 200
	if v, err := strconv.Atoi(os.Getenv("AYOAYO_ARENA_PLAYERS")); err == nil && v > 1 {
		n = v
	}
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", dsn, "--lobby-create-rate", "0", "--player-create-rate", "0",
		"--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0", "--stream-rate", "0"}
	a := startBinary(t, bin, append(args, "--instance", "a")...)
	b := startBinary(t, bin, append(args, "--instance", "b")...)
	defer a.stop(t)
	l := &lobbyClient{t: t, http: &http.Client{Timeout: 30 * time.Second}, urls: [2]string{a.url, b.url}}
	insts := &arenaInstances{http: l.http, urls: l.urls}
	ps := l.players(t, "bot", n)
	tokens := map[string]string{}
	for _, p := range ps {
		tokens[p.id] = p.token
	}
	var tr struct{ ID string }
	if st, body := l.call(0, http.MethodPost, "/v1/tournaments", ps[0].token, map[string]any{
		"kind": "arena", "name": "Bots' arena", "minutes": 1, "rated": true,
		"timeControl": map[string]any{"kind": "clock", "initialSeconds": 60, "incrementSeconds": 1},
	}, &tr); st != http.StatusCreated {
		t.Fatalf("create: %d %s", st, body)
	}
	parallel(n, func(i int) {
		if st, body := l.call(i, http.MethodPost, "/v1/tournaments/"+tr.ID+"/join", ps[i].token, nil, nil); st != http.StatusOK {
			t.Errorf("join %d: %d %s", i, st, body)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	started := time.Now()

	// The bots: one look at the event's games every 200 ms, alternating
	// instances, hands each new game to the players' side of the pool.
	var mu sync.Mutex
	playing := map[string]bool{}
	work := make(chan tournamentGameJSON, 4*n)
	var bots sync.WaitGroup
	for k := range inFlight {
		bots.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(k), 7))
			for g := range work {
				playArenaGame(t, insts, k, g, tokens, rng)
				mu.Lock()
				delete(playing, g.ID)
				mu.Unlock()
			}
		})
	}
	restarted := false
	var final []tournamentGameJSON
	for look := 0; ; look++ {
		if time.Since(started) > 3*time.Minute {
			t.Fatal("the arena did not finish within 3 minutes")
		}
		if !restarted && time.Since(started) > 30*time.Second {
			// Halfway: instance b dies with whatever it was doing, and
			// comes back.
			b.kill(t)
			b = startBinary(t, bin, append(args, "--instance", "b")...)
			l.urls[1] = b.url
			insts.set(1, b.url)
			restarted = true
		}
		var out struct{ Games []tournamentGameJSON }
		if st, body := l.call(look, http.MethodGet, "/v1/tournaments/"+tr.ID+"/games", "", nil, &out); st != http.StatusOK {
			t.Fatalf("games: %d %s", st, body)
		}
		mu.Lock()
		for _, g := range out.Games {
			if !g.Done && !playing[g.ID] {
				playing[g.ID] = true
				work <- g
			}
		}
		mu.Unlock()
		var ev struct {
			Tournament struct{ Status string }
		}
		if st, body := l.call(look, http.MethodGet, "/v1/tournaments/"+tr.ID, "", nil, &ev); st != http.StatusOK {
			t.Fatalf("read: %d %s", st, body)
		}
		if ev.Tournament.Status == "finished" {
			// The games again, read after the event finished.
			if st, body := l.call(look, http.MethodGet, "/v1/tournaments/"+tr.ID+"/games", "", nil, &out); st != http.StatusOK {
				t.Fatalf("games: %d %s", st, body)
			}
			final = out.Games
			break
		}
		<-time.After(200 * time.Millisecond)
	}
	close(work)
	bots.Wait()
	defer b.stop(t)
	checkArenaGames(t, final)
	want := arenaRecount(final)
	for which := range 2 {
		lines := arenaResults(t, l, which, tr.ID)
		if len(lines) != n {
			t.Errorf("instance %d: %d standings lines, want %d", which, len(lines), n)
		}
		for _, st := range lines {
			if st.Points != want[st.Player.ID].points || st.Games != want[st.Player.ID].games {
				t.Errorf("instance %d, %s: %d points in %d games in the standings, %d in %d recounted", which, st.Player.ID,
					st.Points, st.Games, want[st.Player.ID].points, want[st.Player.ID].games)
			}
		}
	}
	t.Logf("%d players, %d games in the arena", n, len(final))
}

// playArenaGame plays g for both its bots: a move each, then a
// resignation of either side or a draw both agree, as the seed draws.
func playArenaGame(t *testing.T, l *arenaInstances, which int, g tournamentGameJSON, tokens map[string]string, rng *rand.Rand) {
	moves := [2]struct {
		token string
		pit   int
	}{{tokens[g.South], 2}, {tokens[g.North], 8}}
	for ply, m := range moves {
		st, body := botCall(t, l, which+ply, "/v1/games/"+g.ID+"/moves", m.token, map[string]any{"ply": ply, "pit": m.pit})
		if st != http.StatusOK && st != http.StatusCreated {
			// A game that an abort closed first is over; anything
			// else is the server's fault.
			if problemCode(body) != "game_over" {
				t.Errorf("game %s ply %d: %d %s", g.ID, ply, st, body)
			}
			return
		}
	}
	end := func(path, token string, body any) {
		if st, resp := botCall(t, l, which, "/v1/games/"+g.ID+path, token, body); st != http.StatusOK && problemCode(resp) != "game_over" {
			t.Errorf("game %s %s: %d %s", g.ID, path, st, resp)
		}
	}
	switch rng.IntN(5) {
	case 0, 1:
		end("/resign", tokens[g.North], nil)
	case 2, 3:
		end("/resign", tokens[g.South], nil)
	default:
		end("/draw", tokens[g.South], map[string]any{"offer": true})
		end("/draw", tokens[g.North], map[string]any{"offer": true})
	}
}

// arenaInstances are the two instances' addresses, one of which changes
// when it is started again, and the bots' HTTP client.
type arenaInstances struct {
	http *http.Client
	mu   sync.Mutex
	urls [2]string
}

func (a *arenaInstances) url(which int) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.urls[which%2]
}

func (a *arenaInstances) set(which int, url string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.urls[which] = url
}

// botCall posts body for a bot, sent again to the other instance while
// the one it went to does not answer (the one killed and started again):
// an accepted move, offer or resignation sent twice is answered as the
// first time, or as over.
func botCall(t *testing.T, l *arenaInstances, which int, path, token string, body any) (int, []byte) {
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	for try := range 50 {
		req, err := http.NewRequest(http.MethodPost, l.url(which+try)+path, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Player-Token", token)
		resp, err := l.http.Do(req)
		if err != nil {
			<-time.After(100 * time.Millisecond)
			continue
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			return resp.StatusCode, out
		}
	}
	t.Errorf("POST %s: no instance answered", path)
	return 0, nil
}

// checkArenaGames fails when a game is listed twice, is not done, or a
// player was in two games at once.
func checkArenaGames(t *testing.T, gs []tournamentGameJSON) {
	t.Helper()
	seen := map[string]bool{}
	byPlayer := map[string][]tournamentGameJSON{}
	for _, g := range gs {
		if seen[g.ID] {
			t.Errorf("game %s is listed twice", g.ID)
		}
		seen[g.ID] = true
		if !g.Done {
			t.Errorf("game %s is not done in a finished arena", g.ID)
		}
		byPlayer[g.South] = append(byPlayer[g.South], g)
		byPlayer[g.North] = append(byPlayer[g.North], g)
	}
	for p, mine := range byPlayer {
		slices.SortFunc(mine, func(x, y tournamentGameJSON) int { return x.CreatedAt.Compare(y.CreatedAt) })
		for i := 1; i < len(mine); i++ {
			if mine[i].CreatedAt.Before(mine[i-1].EndedAt) {
				t.Errorf("player %s: game %s began at %s, before game %s ended at %s", p, mine[i].ID,
					mine[i].CreatedAt.Format(time.RFC3339Nano), mine[i-1].ID, mine[i-1].EndedAt.Format(time.RFC3339Nano))
			}
		}
	}
}

type arenaTally struct{ points, games, streak int }

// arenaRecount scores the games as docs/tournaments.md says an arena
// does, in the order they ended (no berserk here).
func arenaRecount(gs []tournamentGameJSON) map[string]*arenaTally {
	done := slices.Clone(gs)
	slices.SortStableFunc(done, func(x, y tournamentGameJSON) int {
		if c := x.EndedAt.Compare(y.EndedAt); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	out := map[string]*arenaTally{}
	get := func(id string) *arenaTally {
		if out[id] == nil {
			out[id] = &arenaTally{}
		}
		return out[id]
	}
	score := func(id, result string) {
		tl := get(id)
		tl.games++
		fire := tl.streak >= 2
		switch result {
		case "win":
			tl.points += 2 + 2*b2i(fire)
			tl.streak++
		case "draw":
			tl.points += 1 + b2i(fire)
			tl.streak = 0
		default:
			tl.streak = 0
		}
	}
	for _, g := range done {
		if !g.Done || g.Aborted || g.Winner == nil {
			get(g.South)
			get(g.North)
			continue
		}
		switch *g.Winner {
		case "south":
			score(g.South, "win")
			score(g.North, "loss")
		case "north":
			score(g.South, "loss")
			score(g.North, "win")
		default:
			score(g.South, "draw")
			score(g.North, "draw")
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// arenaResults reads the NDJSON standings from instance which.
func arenaResults(t *testing.T, l *lobbyClient, which int, id string) []standingJSON {
	t.Helper()
	st, body := l.call(which, http.MethodGet, "/v1/tournaments/"+id+"/results", "", nil, nil)
	if st != http.StatusOK {
		t.Fatalf("results: %d %s", st, body)
	}
	var out []standingJSON
	for line := range bytes.Lines(body) {
		var s standingJSON
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatalf("results line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}
