package ayoayo_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
)

// Ask whether a move is legal, and what it does: no game, no token. (Here
// a stand-in answers as the server does; point the client at a real one.)
func ExampleClientWithResponses_EvaluateMoveWithResponse() {
	server := standIn(`{"legal":true,"legs":[{"from":2,"sown":[3,4,5,6]}],"capture":null,
		"position":{"pits":[4,4,0,5,5,5,5,4,4,4,4,4],"captured":{"south":0,"north":0},"toMove":"north"},"result":null}`)
	defer server.Close()

	c, err := ayoayo.NewClientWithResponses(server.URL)
	if err != nil {
		log.Fatal(err)
	}
	opening := ayoayo.Position{
		Pits:     []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
		Captured: ayoayo.Captured{South: 0, North: 0},
		ToMove:   ayoayo.SideSouth,
	}
	res, err := c.EvaluateMoveWithResponse(context.Background(), nil, ayoayo.EvaluateRequest{Position: opening, Pit: 2})
	if err != nil {
		log.Fatal(err)
	}
	if res.JSON200 == nil { // a problem: res.ApplicationProblemJSON422, ...
		log.Fatalf("%d %s", res.StatusCode(), res.Body)
	}
	out := res.JSON200
	fmt.Printf("legal %v, %d leg(s), sowed %v, %s to move\n", out.Legal, len(*out.Legs), (*out.Legs)[0].Sown, out.Position.ToMove)
	// Output: legal true, 1 leg(s), sowed [3 4 5 6], north to move
}

// Start a game against the AI and play a move with the seat's token, sent
// by a request editor.
func ExampleClientWithResponses_PlayGameMoveWithResponse() {
	ctx := context.Background()
	c, err := ayoayo.NewClientWithResponses("http://127.0.0.1:8080")
	if err != nil {
		log.Fatal(err)
	}
	level := 3
	created, err := c.CreateGameWithResponse(ctx, nil, ayoayo.CreateGameRequest{
		Opponent: ayoayo.Opponent{Type: ayoayo.OpponentTypeAi, Level: &level},
	})
	if err != nil || created.JSON201 == nil {
		log.Fatalf("create: %v", err)
	}
	seat := created.JSON201
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+seat.Token)
		return nil
	}
	played, err := c.PlayGameMoveWithResponse(ctx, seat.Game.ID, nil, ayoayo.PlayMoveRequest{Ply: seat.Game.Ply, Pit: 0}, bearer)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case played.JSON201 != nil:
		fmt.Println("the game is at ply", played.JSON201.Game.Ply)
	case played.ApplicationProblemJSON409 != nil: // another move was played at that ply
		fmt.Println("stale:", played.ApplicationProblemJSON409.Code)
	}
}

// standIn answers every request with body, as JSON.
func standIn(body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
}
