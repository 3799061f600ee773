package api

// The /v1/players and /v1/leaderboards handlers: they decode, find the
// caller's player token, ask the players service (package players) and
// encode. Whether a token is the player's own is the service's decision;
// errors are returned for errors.go to answer.

import (
	"context"
	"math"

	"github.com/oapi-codegen/nullable"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// PlayerTokenHeader carries a player's token, apart from a seat's
// Authorization: a request may need both (a player's move names its seat,
// a creation names its player).
const PlayerTokenHeader = "Player-Token"

// PlayerService is what the player handlers need: *players.Service has it.
type PlayerService interface {
	BotService
	Create(ctx context.Context, name string) (players.Player, string, error)
	Authenticate(ctx context.Context, token string) (players.Player, error)
	Get(ctx context.Context, id string) (players.Player, error)
	Rename(ctx context.Context, id, token, name string) (players.Player, error)
	RotateToken(ctx context.Context, id, token string) (string, error)
	Delete(ctx context.Context, id, token string) error
	Games(ctx context.Context, id string, q players.GamesQuery, cursor string) ([]players.GameEntry, string, error)
	Puzzles(ctx context.Context, id, cursor string, limit int) ([]players.PuzzleEntry, string, int, error)
	Streak(ctx context.Context, id string) (int, error)
	Leaderboard(ctx context.Context, c players.Category) ([]players.Leader, error)

	// Scoped tokens and OAuth (tokens.go, oauth.go).
	Access(ctx context.Context, token string) (players.Access, error)
	Authorize(ctx context.Context, token string, need players.Scope) (players.Player, error)
	CreateToken(ctx context.Context, token string, r players.TokenRequest) (players.Token, string, error)
	Tokens(ctx context.Context, token string) ([]players.Token, error)
	RevokeToken(ctx context.Context, token, id string) error
	RevokeSecret(ctx context.Context, token string) error
	IssueCode(ctx context.Context, token string, r players.CodeRequest) (players.Code, string, error)
	Exchange(ctx context.Context, code, clientID, redirectURI, verifier string) (players.Token, string, error)
}

// noPlayers stands in for the players service of a server started without
// one: the player operations answer 503, and a request that names a player
// elsewhere (a Player-Token on a creation) is refused rather than taken
// for an anonymous one.
type noPlayers struct{}

var errNoPlayers = newError(ErrNotReady, "this server was started without players")

func (noPlayers) Create(context.Context, string) (players.Player, string, error) {
	return players.Player{}, "", errNoPlayers
}
func (noPlayers) Authenticate(context.Context, string) (players.Player, error) {
	return players.Player{}, errNoPlayers
}
func (noPlayers) Get(context.Context, string) (players.Player, error) {
	return players.Player{}, errNoPlayers
}
func (noPlayers) Rename(context.Context, string, string, string) (players.Player, error) {
	return players.Player{}, errNoPlayers
}
func (noPlayers) RotateToken(context.Context, string, string) (string, error) {
	return "", errNoPlayers
}
func (noPlayers) Delete(context.Context, string, string) error { return errNoPlayers }
func (noPlayers) Games(context.Context, string, players.GamesQuery, string) ([]players.GameEntry, string, error) {
	return nil, "", errNoPlayers
}
func (noPlayers) Puzzles(context.Context, string, string, int) ([]players.PuzzleEntry, string, int, error) {
	return nil, "", 0, errNoPlayers
}
func (noPlayers) Streak(context.Context, string) (int, error) { return 0, errNoPlayers }
func (noPlayers) Leaderboard(context.Context, players.Category) ([]players.Leader, error) {
	return nil, errNoPlayers
}
func (noPlayers) Access(context.Context, string) (players.Access, error) {
	return players.Access{}, errNoPlayers
}
func (noPlayers) Authorize(context.Context, string, players.Scope) (players.Player, error) {
	return players.Player{}, errNoPlayers
}
func (noPlayers) CreateToken(context.Context, string, players.TokenRequest) (players.Token, string, error) {
	return players.Token{}, "", errNoPlayers
}
func (noPlayers) Tokens(context.Context, string) ([]players.Token, error) { return nil, errNoPlayers }
func (noPlayers) RevokeToken(context.Context, string, string) error       { return errNoPlayers }
func (noPlayers) RevokeSecret(context.Context, string) error              { return errNoPlayers }
func (noPlayers) IssueCode(context.Context, string, players.CodeRequest) (players.Code, string, error) {
	return players.Code{}, "", errNoPlayers
}
func (noPlayers) Exchange(context.Context, string, string, string, string) (players.Token, string, error) {
	return players.Token{}, "", errNoPlayers
}

// callerPlayer is the player whose token the request carries: nil when it
// carries none. A scoped token was checked for the operation's scope
// before the handler (authorizeScoped), and is here already. A token that names no player is an error (401), never an
// anonymous caller, so that a client with a stale token learns of it
// instead of playing unrated games it believes rated.
func (s *Server) callerPlayer(ctx context.Context) (*players.Player, error) {
	cl := callerOf(ctx)
	if cl.player != nil {
		return cl.player, nil
	}
	if cl.playerToken == "" {
		return nil, nil
	}
	p, err := s.players.Authorize(ctx, cl.playerToken, cl.need.scope)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// CreatePlayer makes a player and answers its token, once.
func (s *Server) CreatePlayer(ctx context.Context, req oapi.CreatePlayerRequestObject) (oapi.CreatePlayerResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	var name string
	if req.Body.Name != nil {
		name = *req.Body.Name
	}
	p, token, err := s.players.Create(ctx, name)
	if err != nil {
		return nil, err
	}
	body := oapi.CreatedPlayer{Player: playerToAPI(&p, 0), Token: token}
	loc := "/v1/players/" + p.ID
	return oapi.CreatePlayer201JSONResponse{Body: body, Headers: oapi.CreatePlayer201ResponseHeaders{Location: &loc}}, nil
}

// GetPlayer answers a player, to anyone.
func (s *Server) GetPlayer(ctx context.Context, req oapi.GetPlayerRequestObject) (oapi.GetPlayerResponseObject, error) {
	p, err := s.players.Get(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := s.withStreak(ctx, &p)
	if err != nil {
		return nil, err
	}
	return oapi.GetPlayer200JSONResponse(out), nil
}

// withStreak is the answer of player p, with its streak of solved daily
// puzzles.
func (s *Server) withStreak(ctx context.Context, p *players.Player) (oapi.Player, error) {
	streak, err := s.players.Streak(ctx, p.ID)
	if err != nil {
		return oapi.Player{}, err
	}
	return playerToAPI(p, streak), nil
}

// RenamePlayer renames the caller's own player.
func (s *Server) RenamePlayer(ctx context.Context, req oapi.RenamePlayerRequestObject) (oapi.RenamePlayerResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	p, err := s.players.Rename(ctx, req.Id, callerOf(ctx).playerToken, req.Body.Name)
	if err != nil {
		return nil, err
	}
	out, err := s.withStreak(ctx, &p)
	if err != nil {
		return nil, err
	}
	return oapi.RenamePlayer200JSONResponse(out), nil
}

// RotatePlayerToken replaces the caller's token and answers the new one.
func (s *Server) RotatePlayerToken(ctx context.Context, req oapi.RotatePlayerTokenRequestObject) (oapi.RotatePlayerTokenResponseObject, error) {
	token, err := s.players.RotateToken(ctx, req.Id, callerOf(ctx).playerToken)
	if err != nil {
		return nil, err
	}
	return oapi.RotatePlayerToken200JSONResponse{Token: token}, nil
}

// DeletePlayer deletes the caller's own player.
func (s *Server) DeletePlayer(ctx context.Context, req oapi.DeletePlayerRequestObject) (oapi.DeletePlayerResponseObject, error) {
	if err := s.players.Delete(ctx, req.Id, callerOf(ctx).playerToken); err != nil {
		return nil, err
	}
	return oapi.DeletePlayer204Response{}, nil
}

// ListPlayerGames answers a page of a player's ended games.
func (s *Server) ListPlayerGames(ctx context.Context, req oapi.ListPlayerGamesRequestObject) (oapi.ListPlayerGamesResponseObject, error) {
	var q players.GamesQuery
	var after string
	if p := req.Params; p.After != nil {
		after = *p.After
	}
	if p := req.Params.Limit; p != nil {
		q.Limit = *p
	}
	if p := req.Params.Category; p != nil {
		q.Category = players.Category(*p)
	}
	if p := req.Params.Result; p != nil {
		q.Result = players.Result(*p)
	}
	entries, next, err := s.players.Games(ctx, req.Id, q, after)
	if err != nil {
		return nil, err
	}
	out := oapi.ListPlayerGames200JSONResponse{Games: make([]oapi.PlayerGame, len(entries)), Next: nextCursor(next)}
	opponents := make([]string, len(entries))
	for i := range entries {
		opponents[i] = entries[i].Opponent
	}
	bots := s.marks.of(ctx, opponents...)
	for i := range entries {
		out.Games[i] = playerGameToAPI(&entries[i], bots)
	}
	return out, nil
}

// ListPlayerPuzzles answers a page of a player's first attempts, with the
// streak.
func (s *Server) ListPlayerPuzzles(ctx context.Context, req oapi.ListPlayerPuzzlesRequestObject) (oapi.ListPlayerPuzzlesResponseObject, error) {
	var after string
	var limit int
	if p := req.Params.After; p != nil {
		after = *p
	}
	if p := req.Params.Limit; p != nil {
		limit = *p
	}
	entries, next, streak, err := s.players.Puzzles(ctx, req.Id, after, limit)
	if err != nil {
		return nil, err
	}
	out := oapi.ListPlayerPuzzles200JSONResponse{Attempts: make([]oapi.PlayerPuzzle, len(entries)), Next: nextCursor(next), Streak: streak}
	for i, e := range entries {
		pp := oapi.PlayerPuzzle{PuzzleId: e.PuzzleID, At: e.At.UTC(), Solved: e.Solved, Rating: ratingChange(e.Rating.Before, e.Rating.After)}
		if e.Daily.IsZero() {
			pp.Daily.SetNull()
		} else {
			pp.Daily.Set(e.Daily.UTC().Format(gen.DateLayout))
		}
		out.Attempts[i] = pp
	}
	return out, nil
}

// GetLeaderboard answers a category's leaderboard.
func (s *Server) GetLeaderboard(ctx context.Context, req oapi.GetLeaderboardRequestObject) (oapi.GetLeaderboardResponseObject, error) {
	leaders, err := s.players.Leaderboard(ctx, players.Category(req.Category))
	if err != nil {
		return nil, err
	}
	out := oapi.GetLeaderboard200JSONResponse{Category: req.Category, Players: make([]oapi.Leader, len(leaders))}
	ids := make([]string, len(leaders))
	for i, l := range leaders {
		ids[i] = l.PlayerID
	}
	bots := s.marks.of(ctx, ids...)
	for i, l := range leaders {
		out.Players[i] = oapi.Leader{Rank: i + 1, Id: l.PlayerID, Name: l.Name, Bot: bots[l.PlayerID], Rating: rounded(l.Rating.Value),
			Deviation: rounded(l.Rating.Deviation), Games: l.Rating.Games}
	}
	return out, nil
}

func nextCursor(next string) nullable.Nullable[string] {
	if next == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(next)
}

// rounded is how answers show ratings: whole points, as players read them;
// the service keeps the fractions.
func rounded(v float64) int { return int(math.Round(v)) }

// ratingChange shows a change with change = after - before of the rounded
// values, so the three numbers a client shows always agree.
func ratingChange(before, after players.Rating) oapi.RatingChange {
	b, a := rounded(before.Value), rounded(after.Value)
	return oapi.RatingChange{Before: b, After: a, Change: a - b}
}

func playerRatingToAPI(r players.Rating) oapi.PlayerRating {
	return oapi.PlayerRating{Rating: rounded(r.Value), Deviation: rounded(r.Deviation), Games: r.Games, Provisional: r.Provisional()}
}

func playerToAPI(p *players.Player, streak int) oapi.Player {
	return oapi.Player{
		Id:        p.ID,
		Name:      p.Name,
		Bot:       p.Bot,
		CreatedAt: p.CreatedAt.UTC(),
		Ratings: oapi.PlayerRatings{Live: playerRatingToAPI(p.Rating(players.Live)),
			Correspondence: playerRatingToAPI(p.Rating(players.Correspondence)), Puzzle: playerRatingToAPI(p.Rating(players.Puzzles))},
		Counts: oapi.PlayerCounts{Games: p.Counts.Games, Wins: p.Counts.Wins, Losses: p.Counts.Losses, Draws: p.Counts.Draws,
			Rated: p.Counts.Rated, Puzzles: p.Counts.Puzzles, Solved: p.Counts.Solved},
		Streak: streak,
	}
}

func playerGameToAPI(e *players.GameEntry, bots botSet) oapi.PlayerGame {
	out := oapi.PlayerGame{GameId: e.GameID, EndedAt: e.EndedAt.UTC(), Side: oapi.Side(engine.Side(e.Side).String()), Rated: e.Rated,
		Result: oapi.PlayerResult(e.Result), Ai: e.AI}
	if e.Category == "" {
		out.Category.SetNull()
	} else {
		out.Category.Set(oapi.GameCategory(e.Category))
	}
	if e.Opponent == "" {
		out.Opponent.SetNull()
	} else {
		out.Opponent.Set(oapi.PlayerOpponent{Id: e.Opponent, Name: e.OpponentName, Bot: bots[e.Opponent]})
	}
	if e.Rated {
		c := ratingChange(e.Rating.Before, e.Rating.After)
		out.Rating.Set(oapi.NullableRatingChange{Before: c.Before, After: c.After, Change: c.Change})
	} else {
		out.Rating.SetNull()
	}
	return out
}

// seatPlayerToAPI is the player of a game's seat; null for an anonymous
// seat or the AI (or a player deleted since, whose seats name nobody).
func seatPlayerToAPI(g *games.Game, sp games.SeatPlayer, bots botSet) nullable.Nullable[oapi.SeatPlayer] {
	if sp.ID == "" {
		return nullable.NewNullNullable[oapi.SeatPlayer]()
	}
	out := oapi.SeatPlayer{Id: sp.ID, Name: sp.Name, Bot: bots[sp.ID]}
	if g.Category() == "" {
		out.Rating.SetNull()
	} else {
		out.Rating.Set(rounded(sp.Rating))
		out.Provisional = sp.Deviation > players.ProvisionalDeviation
	}
	if sp.HasChange {
		out.Change.Set(rounded(sp.Rating+sp.Change) - rounded(sp.Rating))
	} else {
		out.Change.SetNull()
	}
	return nullable.NewNullableWithValue(out)
}
