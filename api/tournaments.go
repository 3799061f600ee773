package api

// The tournaments' handlers (/v1/tournaments, berserk, /v1/bulk-pairings):
// they decode, find the caller's player, ask the tournaments service
// (package tournaments) and encode. Errors are returned for errors.go to
// answer. An event's stream is a lobby stream of its own (see lobby.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/tournaments"
	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

// Pages of the tournaments' lists without a limit.
const (
	defaultTournamentLimit = 50
	defaultStandingsPage   = 50
)

// TournamentService is what the tournaments' handlers need:
// *tournaments.Service has it.
type TournamentService interface {
	Create(ctx context.Context, p *players.Player, req tournaments.NewTournament) (tournaments.Tournament, error)
	List(ctx context.Context, status tournaments.Status, limit int, after string) ([]tournaments.Tournament, error)
	Standings(ctx context.Context, id string) (tournaments.View, error)
	Event(ctx context.Context, id string) (tournaments.Event, error)
	Join(ctx context.Context, p *players.Player, id string) (tournaments.Entrant, error)
	Withdraw(ctx context.Context, p *players.Player, id string) error
	Berserk(ctx context.Context, p *players.Player, gameID string) (games.Game, error)
	CreateBulk(ctx context.Context, p *players.Player, req tournaments.NewBulk) (tournaments.Bulk, error)
	Bulk(ctx context.Context, id string) (tournaments.Bulk, error)
}

// noTournaments stands in for the tournaments of a server started without
// them: every operation answers 503.
type noTournaments struct{}

var errNoTournaments = newError(ErrNotReady, "this server was started without tournaments")

func (noTournaments) Create(context.Context, *players.Player, tournaments.NewTournament) (tournaments.Tournament, error) {
	return tournaments.Tournament{}, errNoTournaments
}
func (noTournaments) List(context.Context, tournaments.Status, int, string) ([]tournaments.Tournament, error) {
	return nil, errNoTournaments
}
func (noTournaments) Standings(context.Context, string) (tournaments.View, error) {
	return tournaments.View{}, errNoTournaments
}
func (noTournaments) Event(context.Context, string) (tournaments.Event, error) {
	return tournaments.Event{}, errNoTournaments
}
func (noTournaments) Join(context.Context, *players.Player, string) (tournaments.Entrant, error) {
	return tournaments.Entrant{}, errNoTournaments
}
func (noTournaments) Withdraw(context.Context, *players.Player, string) error {
	return errNoTournaments
}
func (noTournaments) Berserk(context.Context, *players.Player, string) (games.Game, error) {
	return games.Game{}, errNoTournaments
}
func (noTournaments) CreateBulk(context.Context, *players.Player, tournaments.NewBulk) (tournaments.Bulk, error) {
	return tournaments.Bulk{}, errNoTournaments
}
func (noTournaments) Bulk(context.Context, string) (tournaments.Bulk, error) {
	return tournaments.Bulk{}, errNoTournaments
}

// CreateTournament makes an event the caller organises.
func (s *Server) CreateTournament(ctx context.Context, req oapi.CreateTournamentRequestObject) (oapi.CreateTournamentResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	b := req.Body
	nt := tournaments.NewTournament{Kind: tournaments.Kind(b.Kind), Name: b.Name, TimeControl: requestTimeControl(b.TimeControl),
		Rated: b.Rated != nil && *b.Rated, Berserk: b.Berserk != nil && *b.Berserk}
	if b.StartsAt != nil {
		nt.StartsAt = *b.StartsAt
	}
	if b.Minutes != nil {
		nt.Minutes = *b.Minutes
	}
	if b.Rounds != nil {
		nt.Rounds = *b.Rounds
	}
	if b.RoundGapSeconds != nil {
		nt.RoundGap = time.Duration(*b.RoundGapSeconds) * time.Second
	}
	if c := b.Conditions; c != nil {
		if c.MinRatedGames != nil {
			nt.Conditions.MinRatedGames = *c.MinRatedGames
		}
		if c.MinRating != nil {
			nt.Conditions.MinRating = *c.MinRating
		}
		if c.MaxRating != nil {
			nt.Conditions.MaxRating = *c.MaxRating
		}
		nt.Conditions.Bots = c.Bots != nil && *c.Bots
	}
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.tournaments.Create(ctx, p, nt)
	if err != nil {
		return nil, err
	}
	loc := "/v1/tournaments/" + t.ID
	return oapi.CreateTournament201JSONResponse{Body: tournamentToAPI(&t), Headers: oapi.CreateTournament201ResponseHeaders{Location: &loc}}, nil
}

// ListTournaments answers a page of events of one status.
func (s *Server) ListTournaments(ctx context.Context, req oapi.ListTournamentsRequestObject) (oapi.ListTournamentsResponseObject, error) {
	status, limit, after := tournaments.Running, defaultTournamentLimit, ""
	if st := req.Params.Status; st != nil {
		status = tournaments.Status(*st)
	}
	if l := req.Params.Limit; l != nil {
		limit = *l
	}
	if a := req.Params.After; a != nil {
		after = *a
	}
	// One more than asked says whether there is a next page.
	ts, err := s.tournaments.List(ctx, status, limit+1, after)
	if err != nil {
		return nil, err
	}
	out := oapi.ListTournaments200JSONResponse{Tournaments: []oapi.TournamentSummary{}, Next: nullable.NewNullNullable[string]()}
	if len(ts) > limit {
		ts = ts[:limit]
		out.Next.Set(ts[limit-1].ID)
	}
	for i := range ts {
		v, err := s.tournaments.Standings(ctx, ts[i].ID)
		if err != nil {
			return nil, err
		}
		out.Tournaments = append(out.Tournaments, oapi.TournamentSummary{Tournament: tournamentToAPI(&ts[i]), Players: len(v.Standings)})
	}
	return out, nil
}

// GetTournament answers an event with a page of its standings.
func (s *Server) GetTournament(ctx context.Context, req oapi.GetTournamentRequestObject) (oapi.GetTournamentResponseObject, error) {
	page, per := 1, defaultStandingsPage
	if p := req.Params.Page; p != nil {
		page = *p
	}
	if p := req.Params.PerPage; p != nil {
		per = *p
	}
	v, err := s.tournaments.Standings(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	out := oapi.GetTournament200JSONResponse{Tournament: tournamentToAPI(&v.Tournament), Players: len(v.Standings),
		Games: v.Games, Playing: v.Playing, Page: page, PerPage: per, Standings: []oapi.TournamentStanding{}}
	from := min((page-1)*per, len(v.Standings))
	shown := v.Standings[from:min(from+per, len(v.Standings))]
	bots := s.standingBots(ctx, shown)
	for i := range shown {
		out.Standings = append(out.Standings, standingToAPI(&shown[i], bots))
	}
	return out, nil
}

// JoinTournament enters the caller into an event.
func (s *Server) JoinTournament(ctx context.Context, req oapi.JoinTournamentRequestObject) (oapi.JoinTournamentResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.tournaments.Join(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.JoinTournament200JSONResponse(entryToAPI(req.Id, &e, p.Bot)), nil
}

// WithdrawFromTournament takes the caller out of an event's pairings.
func (s *Server) WithdrawFromTournament(ctx context.Context, req oapi.WithdrawFromTournamentRequestObject) (oapi.WithdrawFromTournamentResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.tournaments.Withdraw(ctx, p, req.Id); err != nil {
		return nil, err
	}
	ev, err := s.tournaments.Event(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	for i := range ev.Entrants {
		if ev.Entrants[i].PlayerID == p.ID {
			return oapi.WithdrawFromTournament200JSONResponse(entryToAPI(req.Id, &ev.Entrants[i], p.Bot)), nil
		}
	}
	e := tournaments.Entrant{PlayerID: p.ID, Name: p.Name, Withdrawn: true}
	return oapi.WithdrawFromTournament200JSONResponse(entryToAPI(req.Id, &e, p.Bot)), nil
}

// ListTournamentGames answers every game of an event, or the records of
// those the server keeps.
func (s *Server) ListTournamentGames(ctx context.Context, req oapi.ListTournamentGamesRequestObject) (oapi.ListTournamentGamesResponseObject, error) {
	ev, err := s.tournaments.Event(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	vary := "Accept"
	headers := oapi.ListTournamentGames200ResponseHeaders{Vary: &vary}
	if wantsRecord(callerOf(ctx).accept) {
		text, err := s.tournamentRecords(ctx, &ev)
		if err != nil {
			return nil, err
		}
		return oapi.ListTournamentGames200ApplicationxAyoayoRecordResponse{Body: strings.NewReader(text),
			ContentLength: int64(len(text)), Headers: headers}, nil
	}
	out := oapi.ListTournamentGames200JSONResponse{Body: oapi.TournamentGames{Games: make([]oapi.TournamentGame, len(ev.Games))}, Headers: headers}
	for i := range ev.Games {
		out.Body.Games[i] = tournamentGameToAPI(&ev.Games[i])
	}
	return out, nil
}

// tournamentRecords is the text of the records of ev's games that the
// server keeps, in the order they were made, each named by the event.
func (s *Server) tournamentRecords(ctx context.Context, ev *tournaments.Event) (string, error) {
	var b strings.Builder
	for i := range ev.Games {
		tg := &ev.Games[i]
		g, err := s.games.Game(ctx, tg.GameID)
		if errors.Is(err, games.ErrNotFound) {
			continue // gone after its retention; its result stays in the event
		}
		if err != nil {
			return "", err
		}
		ms, err := s.games.Moves(ctx, g.ID, 0, len(g.History))
		if err != nil {
			return "", err
		}
		rec := recordOf(&g, ms)
		rec.Set(record.TagEvent, ev.Name)
		if tg.Round > 0 {
			// After the Date, where a reader of chess records looks.
			at := slices.IndexFunc(rec.Tags, func(t record.Tag) bool { return t.Name == record.TagDate }) + 1
			rec.Tags = slices.Insert(rec.Tags, at, record.Tag{Name: record.TagRound, Value: strconv.Itoa(tg.Round)})
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(rec.String())
	}
	return b.String(), nil
}

// GetTournamentResults answers the whole standings as NDJSON.
func (s *Server) GetTournamentResults(ctx context.Context, req oapi.GetTournamentResultsRequestObject) (oapi.GetTournamentResultsResponseObject, error) {
	v, err := s.tournaments.Standings(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	bots := s.standingBots(ctx, v.Standings)
	for i := range v.Standings {
		if err := enc.Encode(standingToAPI(&v.Standings[i], bots)); err != nil {
			return nil, err
		}
	}
	return oapi.GetTournamentResults200ApplicationxNdjsonResponse{Body: &buf, ContentLength: int64(buf.Len())}, nil
}

// FollowTournamentEvents streams an event's news.
func (s *Server) FollowTournamentEvents(ctx context.Context, req oapi.FollowTournamentEventsRequestObject) (oapi.FollowTournamentEventsResponseObject, error) {
	if _, err := s.tournaments.Standings(ctx, req.Id); err != nil {
		return nil, err
	}
	return s.openStream(ctx, lobby.TournamentStream(req.Id), lastEventID(req.Params.LastEventID, req.Params.LastEventIDQuery))
}

func (ls lobbyStream) VisitFollowTournamentEventsResponse(w http.ResponseWriter) error {
	return ls.visit(w)
}

// BerserkGame halves the caller's clock in an arena game.
func (s *Server) BerserkGame(ctx context.Context, req oapi.BerserkGameRequestObject) (oapi.BerserkGameResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	g, err := s.tournaments.Berserk(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	side := engine.South
	if g.Players[engine.North].ID == p.ID {
		side = engine.North
	}
	return oapi.BerserkGame200JSONResponse{Game: g.ID, Side: oapi.Side(side.String()), ClockMs: g.Clock[side].Milliseconds()}, nil
}

// CreateBulkPairing makes an organiser's games, all or none.
func (s *Server) CreateBulkPairing(ctx context.Context, req oapi.CreateBulkPairingRequestObject) (oapi.CreateBulkPairingResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	b := req.Body
	nb := tournaments.NewBulk{TimeControl: requestTimeControl(b.TimeControl), Rated: b.Rated != nil && *b.Rated}
	if b.ClockStartsAt != nil {
		nb.ClockStartsAt = *b.ClockStartsAt
	}
	for _, pr := range b.Pairs {
		nb.Pairs = append(nb.Pairs, tournaments.BulkPair{South: pr.South, North: pr.North, SouthToken: pr.SouthToken, NorthToken: pr.NorthToken})
	}
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	bulk, err := s.tournaments.CreateBulk(ctx, p, nb)
	if err != nil {
		return nil, err
	}
	return oapi.CreateBulkPairing201JSONResponse(bulkToAPI(&bulk)), nil
}

// GetBulkPairing answers a bulk pairing.
func (s *Server) GetBulkPairing(ctx context.Context, req oapi.GetBulkPairingRequestObject) (oapi.GetBulkPairingResponseObject, error) {
	b, err := s.tournaments.Bulk(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.GetBulkPairing200JSONResponse(bulkToAPI(&b)), nil
}

func nullableTime(t time.Time) nullable.Nullable[time.Time] {
	if t.IsZero() {
		return nullable.NewNullNullable[time.Time]()
	}
	return nullable.NewNullableWithValue(t)
}

func tournamentToAPI(t *tournaments.Tournament) oapi.Tournament {
	out := oapi.Tournament{Id: t.ID, Kind: oapi.TournamentKind(t.Kind), Name: t.Name, CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt,
		TimeControl: timeControlToAPI(t.TimeControl), Rated: t.Rated, StartsAt: t.StartsAt, EndsAt: nullableTime(t.EndsAt()),
		Minutes: t.Minutes, Rounds: t.Rounds, RoundGapSeconds: int(t.RoundGap / time.Second), Round: t.Round,
		Berserk: t.Berserk, Status: oapi.TournamentStatus(t.Status), FinishedAt: nullableTime(t.FinishedAt)}
	c := t.Conditions
	if c.MinRatedGames > 0 {
		out.Conditions.MinRatedGames = &c.MinRatedGames
	}
	if c.MinRating > 0 {
		out.Conditions.MinRating = &c.MinRating
	}
	if c.MaxRating > 0 {
		out.Conditions.MaxRating = &c.MaxRating
	}
	out.Conditions.Bots = &c.Bots
	return out
}

// standingBots says which players of standings are bots.
func (s *Server) standingBots(ctx context.Context, standings []tournaments.Standing) botSet {
	ids := make([]string, len(standings))
	for i := range standings {
		ids[i] = standings[i].PlayerID
	}
	return s.marks.of(ctx, ids...)
}

func standingToAPI(st *tournaments.Standing, bots botSet) oapi.TournamentStanding {
	sheet := st.Sheet
	if sheet == nil {
		sheet = []int{}
	}
	return oapi.TournamentStanding{Rank: st.Rank, Player: oapi.LobbyPlayer{Id: st.PlayerID, Name: st.Name, Bot: bots[st.PlayerID]}, Rating: st.Rating,
		Points: st.Points, Games: st.Games, Wins: st.Wins, Draws: st.Draws, Losses: st.Losses, Withdrawn: st.Withdrawn,
		Playing: st.Playing, Sheet: sheet, OnFire: st.OnFire, Berserks: st.Berserks, Buchholz: st.Buchholz,
		SonnebornBerger: st.SonnebornBerger, Byes: st.Byes}
}

func entryToAPI(id string, e *tournaments.Entrant, bot bool) oapi.TournamentEntry {
	return oapi.TournamentEntry{Tournament: id, Player: oapi.LobbyPlayer{Id: e.PlayerID, Name: e.Name, Bot: bot}, JoinedAt: e.JoinedAt,
		JoinedRound: e.JoinedRound, Withdrawn: e.Withdrawn}
}

func tournamentGameToAPI(g *tournaments.Game) oapi.TournamentGame {
	out := oapi.TournamentGame{Id: g.GameID, Round: g.Round, South: g.South, North: g.North, CreatedAt: g.CreatedAt,
		Berserk: oapi.BerserkFlags{South: g.Berserk[engine.South], North: g.Berserk[engine.North]}, Done: g.Done,
		Aborted: g.Aborted, Plies: g.Plies, Winner: nullable.NewNullNullable[oapi.TournamentGameWinner](),
		EndedAt: nullable.NewNullNullable[time.Time]()}
	if g.Done {
		out.EndedAt.Set(g.EndedAt)
		switch g.Outcome {
		case pairing.SouthWins:
			out.Winner.Set(oapi.TournamentGameWinnerSouth)
		case pairing.NorthWins:
			out.Winner.Set(oapi.TournamentGameWinnerNorth)
		default:
			out.Winner.Set(oapi.TournamentGameWinnerDraw)
		}
	}
	return out
}

func bulkToAPI(b *tournaments.Bulk) oapi.BulkPairing {
	out := oapi.BulkPairing{Id: b.ID, CreatedBy: b.CreatedBy, CreatedAt: b.CreatedAt, TimeControl: timeControlToAPI(b.TimeControl),
		Rated: b.Rated, ClockStartsAt: nullableTime(b.ClockStartsAt), Games: make([]oapi.BulkPairingGame, len(b.Games))}
	for i, g := range b.Games {
		out.Games[i] = oapi.BulkPairingGame{Id: g.GameID, South: g.South, North: g.North}
	}
	return out
}
