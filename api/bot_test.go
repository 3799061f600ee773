package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"
	"golang.org/x/oauth2"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/players"
)

// bot is a third party's program written against the generated Go client
// alone: it keeps the game as the full-state stream tells it (the game
// event, then each event's game or move), and never reads the game or
// replays moves itself.
type bot struct {
	t      *testing.T
	c      *ayoayo.ClientWithResponses
	id     string
	side   ayoayo.Side
	token  string
	game   ayoayo.Game // as the stream told it
	lastID int         // the id of the last event seen; -1 for none
	ids    map[int]bool
	events chan botEvent
	stop   context.CancelFunc
}

type botEvent struct {
	kind string
	id   int // -1: none
	data []byte
}

func (b *bot) auth(_ context.Context, req *http.Request) error {
	req.Header.Set("Authorization", "Bearer "+b.token)
	return nil
}

// connect opens the bot's stream, resuming after its last event if any.
func (b *bot) connect(ctx context.Context) {
	b.t.Helper()
	ctx, b.stop = context.WithCancel(ctx)
	var params ayoayo.FollowGameEventsParams
	if b.lastID >= 0 {
		params.LastEventID = &b.lastID
	}
	resp, err := b.c.FollowGameEvents(ctx, b.id, &params)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.t.Fatalf("%s: events: %v %v", b.side, resp, err)
	}
	events := make(chan botEvent, 64)
	b.events = events
	go func() {
		defer close(events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		cur := botEvent{id: -1}
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "" && cur.kind != "":
				events <- cur
				cur = botEvent{id: -1}
			case strings.HasPrefix(line, "id: "):
				cur.id, _ = strconv.Atoi(line[4:])
			case strings.HasPrefix(line, "event: "):
				cur.kind = line[7:]
			case strings.HasPrefix(line, "data: "):
				cur.data = []byte(line[6:])
			}
		}
	}()
}

// drop closes the bot's stream, as a lost connection would.
func (b *bot) drop() {
	b.stop()
	for range b.events { // what was under way
	}
}

// next takes the stream's next event into the bot's game, and returns it.
// It fails on an id seen before or an id not after the last.
func (b *bot) next() botEvent {
	b.t.Helper()
	var e botEvent
	select {
	case ev, ok := <-b.events:
		if !ok {
			b.t.Fatalf("%s: the stream ended", b.side)
		}
		e = ev
	case <-time.After(10 * time.Second):
		b.t.Fatalf("%s: no event", b.side)
	}
	switch {
	case e.kind == "game" && e.id != -1:
		b.t.Fatalf("%s: the game event has id %d", b.side, e.id)
	case e.kind != "game" && (e.id < 0 || b.ids[e.id] || e.id <= b.lastID):
		b.t.Fatalf("%s: %s event with id %d after %d (seen before: %v)", b.side, e.kind, e.id, b.lastID, b.ids[e.id])
	}
	if e.id >= 0 {
		b.ids[e.id], b.lastID = true, e.id
	}
	switch e.kind {
	case "move":
		var m ayoayo.GameMoveEvent
		b.decode(e.data, &m)
		b.game.Ply, b.game.Position, b.game.Version, b.game.Status, b.game.Result = m.Ply+1, m.Position, m.Version, m.Status, m.Result
	case "opponentGone":
		var g ayoayo.GameOpponentGoneEvent
		b.decode(e.data, &g)
		if g.Version != b.game.Version || g.Status != b.game.Status {
			b.t.Fatalf("%s: opponentGone at version %d %s, the bot's game at %d %s", b.side, g.Version, g.Status, b.game.Version, b.game.Status)
		}
	default: // the whole game
		b.decode(e.data, &b.game)
	}
	return e
}

// until takes events until one of kind.
func (b *bot) until(kind string) botEvent {
	b.t.Helper()
	for {
		if e := b.next(); e.kind == kind {
			return e
		}
	}
}

func (b *bot) decode(data []byte, v any) {
	b.t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		b.t.Fatalf("%s: %s: %v", b.side, data, err)
	}
}

// agrees checks the bot's game against GET /v1/games/{id}; whole, when
// the last event carried the whole game.
func (b *bot) agrees(whole bool) {
	b.t.Helper()
	res, err := b.c.GetGameWithResponse(context.Background(), b.id, nil)
	if err != nil || res.JSON200 == nil {
		b.t.Fatalf("GET game: %v", err)
	}
	got, want := b.game, *res.JSON200
	if !whole {
		got = ayoayo.Game{Ply: got.Ply, Position: got.Position, Version: got.Version, Status: got.Status, Result: got.Result}
		want = ayoayo.Game{Ply: want.Ply, Position: want.Position, Version: want.Version, Status: want.Status, Result: want.Result}
	}
	if g, w := mustMarshal(b.t, got), mustMarshal(b.t, want); g != w {
		b.t.Fatalf("%s's game\n%s\nGET /v1/games/{id}\n%s", b.side, g, w)
	}
}

// move plays the first legal pit, which the server lists.
func (b *bot) move() {
	b.t.Helper()
	ctx := context.Background()
	listed, err := b.c.ListMovesWithResponse(ctx, nil, ayoayo.MovesRequest{Position: b.game.Position})
	if err != nil || listed.JSON200 == nil {
		b.t.Fatalf("list moves: %v", err)
	}
	for _, m := range listed.JSON200.Moves {
		if m.Legal {
			res, err := b.c.PlayGameMoveWithResponse(ctx, b.id, nil, ayoayo.PlayMoveRequest{Ply: b.game.Ply, Pit: m.Pit}, b.auth)
			if err != nil || res.JSON201 == nil {
				b.t.Fatalf("%s: move %d at ply %d: %v %s", b.side, m.Pit, b.game.Ply, err, res.Body)
			}
			return
		}
	}
	b.t.Fatalf("%s: no legal move", b.side)
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBotThroughTheFullStateStream: two bots on the generated Go client,
// each authorised by its player through OAuth with PKCE, play a live game
// through the event stream alone; one is dropped, a
// takeback happens while it is away, and it resumes without rebuilding
// anything: the game event it gets first is GET /v1/games/{id}, and no
// event id ever comes twice. Then it goes, and the other, told by
// opponentGone, claims the win when the claim opens (the injected clock).
func TestBotThroughTheFullStateStream(t *testing.T) {
	clock := gamestest.NewClock()
	// A short poll: the feed looks at the injected clock that often, for
	// opponentGone.
	gs := newFollowedServer(t, Options{}, games.Options{Now: clock.Now}, games.HubOptions{PollInterval: 10 * time.Millisecond}, nil)
	ctx := t.Context()
	c, err := ayoayo.NewClientWithResponses(gs.ts.URL, ayoayo.WithHTTPClient(gs.client))
	if err != nil {
		t.Fatal(err)
	}
	// Each bot's player lets it play through the OAuth flow (PKCE, the
	// game:play scope, golang.org/x/oauth2): the bot never sees its
	// player's own token, and acts with the app's token alone.
	appToken := func(name string) string {
		t.Helper()
		_, own := gs.newPlayer(name)
		app := newOAuthApp(gs, players.ScopeGamePlay)
		code := app.approve(t, gs, own)
		tok, err := app.conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, gs.client), code, oauth2.VerifierOption(app.verifier))
		if err != nil || !strings.HasPrefix(tok.AccessToken, "oat_") {
			t.Fatalf("%s's app token: %v, %v", name, tok, err)
		}
		return tok.AccessToken
	}
	tokens := map[string]string{"creator": appToken("South bot"), "joiner": appToken("North bot")}
	as := func(token string) ayoayo.RequestEditorFn {
		return func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}
	}
	initial, increment := 180, 2
	created, err := c.CreateGameWithResponse(ctx, nil, ayoayo.CreateGameRequest{
		Opponent:    ayoayo.Opponent{Type: ayoayo.OpponentTypeHuman},
		TimeControl: nullable.NewNullableWithValue(ayoayo.TimeControl{Kind: ayoayo.TimeControlKindClock, InitialSeconds: &initial, IncrementSeconds: &increment}),
	}, as(tokens["creator"]))
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create: %v", err)
	}
	joined, err := c.JoinGameWithResponse(ctx, created.JSON201.Game.ID, nil, as(tokens["joiner"]))
	if err != nil || joined.JSON201 == nil {
		t.Fatalf("join: %v", err)
	}
	if p := joined.JSON201.Game.Players; p.South.IsNull() || p.North.IsNull() {
		t.Fatalf("the seats %+v, want each the player whose app token took it", p)
	}
	bots := map[ayoayo.Side]*bot{}
	for i, seat := range []*ayoayo.GameSeat{created.JSON201, joined.JSON201} {
		// The bot acts with its app's token, not the seat's.
		b := &bot{t: t, c: c, id: seat.Game.ID, side: seat.Seat, token: tokens[[]string{"creator", "joiner"}[i]], lastID: -1, ids: map[int]bool{}}
		b.connect(ctx)
		if e := b.next(); e.kind != "game" {
			t.Fatalf("%s: first event %s, want the game", b.side, e.kind)
		}
		b.agrees(true)
		bots[seat.Seat] = b
	}
	south, north := bots[ayoayo.SideSouth], bots[ayoayo.SideNorth]

	// Each bot moves when its stream says it is to move, and both follow
	// every move.
	turn := func() {
		t.Helper()
		mover := bots[south.game.Position.ToMove]
		mover.move()
		for _, b := range bots {
			b.until("move")
			b.agrees(false)
		}
	}
	for range 4 {
		turn()
	}

	// South is dropped; North asks for a takeback, which South, away
	// from its stream, accepts; North moves again.
	south.drop()
	if res, err := c.OfferTakebackWithResponse(ctx, north.id, nil, ayoayo.OfferRequest{Offer: true}, north.auth); err != nil || res.JSON200 == nil {
		t.Fatalf("takeback offer: %v", err)
	}
	north.until("offer")
	if res, err := c.OfferTakebackWithResponse(ctx, south.id, nil, ayoayo.OfferRequest{Offer: true}, south.auth); err != nil || res.JSON200 == nil {
		t.Fatalf("takeback: %v", err)
	}
	north.until("takeback")
	north.agrees(true)
	north.move()
	north.until("move")

	// South resumes from the last id it saw, from before the takeback: the
	// game as it is now, nothing to rebuild, and no id again.
	before := south.lastID
	south.connect(ctx)
	if e := south.next(); e.kind != "game" || south.game.Ply != 4 || south.lastID != before {
		t.Fatalf("resumed: %s at ply %d, last id %d; want the game at ply 4, last id still %d", e.kind, south.game.Ply, south.lastID, before)
	}
	south.agrees(true)
	turn() // South's
	turn() // North's

	// South goes: it moves no more. North's stream tells when the claim
	// opens; North claims then.
	south.drop()
	clock.Advance(games.GoneAfter(games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute}))
	gone := north.until("opponentGone")
	var og ayoayo.GameOpponentGoneEvent
	north.decode(gone.data, &og)
	if og.Side != ayoayo.SideSouth || og.ClaimInSeconds != 10 || gone.id != int(north.game.Version)*8+7 {
		t.Fatalf("opponentGone %+v id %d", og, gone.id)
	}
	if res, err := c.ClaimVictoryWithResponse(ctx, north.id, nil, north.auth); err != nil || res.ApplicationProblemJSON409 == nil ||
		res.ApplicationProblemJSON409.Code != "claim_too_early" {
		t.Fatalf("claim in the grace: %v %s", err, res.Body)
	}
	clock.Advance(og.ClaimAt.Sub(clock.Now()))
	res, err := c.ClaimVictoryWithResponse(ctx, north.id, nil, north.auth)
	if err != nil || res.JSON200 == nil {
		t.Fatalf("claim: %v %s", err, res.Body)
	}
	north.until("end")
	north.agrees(true)
	if r, err := north.game.Result.Get(); err != nil || r.Winner != ayoayo.ResultWinnerNorth || r.Reason != ayoayo.ResultReasonTimeout {
		t.Fatalf("the end: %+v %v, want North's win by timeout", r, err)
	}
}
