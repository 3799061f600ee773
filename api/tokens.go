package api

// Scoped tokens: what each operation needs (from the document's security),
// the one check of it, and the /v1/tokens and /v1/oauth handlers. The
// OAuth endpoints themselves, whose wire format is the RFCs', are in
// oauth.go.

import (
	"context"
	"errors"
	"net/url"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/players"
)

// The document's names of the security schemes a player acts through.
const (
	playerTokenScheme = "playerToken"
	oauth2Scheme      = "oauth2"
)

// need is what an operation asks of a player token.
type need struct {
	// player: the operation takes a player token at all. A token sent to
	// one that does not is ignored, as it always was.
	player bool
	// scope is the scope its oauth2 requirement names; "" when it has
	// none: only the player's own token may act.
	scope players.Scope
}

// needs reads what each operation asks of a player token from its
// security requirements: the document is the one table (TestScopeTable
// holds every operation to it).
func needs(spec *openapi3.T) map[string]need {
	out := map[string]need{}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Security == nil {
				continue
			}
			var n need
			for _, req := range *op.Security {
				if _, ok := req[playerTokenScheme]; ok {
					n.player = true
				}
				if scopes := req[oauth2Scheme]; len(scopes) > 0 {
					n.player, n.scope = true, players.Scope(scopes[0])
				}
			}
			out[op.OperationID] = n
		}
	}
	return out
}

// authorizeScoped is the one check of a scoped token: withCaller makes it
// before the handler of an operation that takes a player, so that no
// handler can forget it, and keeps the player for callerPlayer. A
// player's own token may do everything: it is left to callerPlayer and
// the services, as it always was, and found only if the handler asks.
func (s *Server) authorizeScoped(ctx context.Context, cl *caller) error {
	if !cl.need.player || !players.IsScopedToken(cl.playerToken) {
		return nil
	}
	p, err := s.players.Authorize(ctx, cl.playerToken, cl.need.scope)
	if err != nil {
		return err
	}
	cl.player = &p
	return nil
}

// tokenProblemMembers names the missing scope in its problem.
func tokenProblemMembers(err error, p *problem.Problem) {
	if ms, ok := errors.AsType[*players.MissingScopeError](err); ok {
		p.Scope = string(ms.Scope)
	}
}

func scopesFromAPI(in []oapi.Scope) []players.Scope {
	out := make([]players.Scope, len(in))
	for i, sc := range in {
		out[i] = players.Scope(sc)
	}
	return out
}

func scopesToAPI(in []players.Scope) []oapi.Scope {
	out := make([]oapi.Scope, len(in))
	for i, sc := range in {
		out[i] = oapi.Scope(sc)
	}
	return out
}

func tokenToAPI(t *players.Token) oapi.Token {
	out := oapi.Token{Id: t.ID, Description: t.Description, Scopes: scopesToAPI(t.Scopes),
		Kind: oapi.TokenKindPersonal, CreatedAt: t.CreatedAt.UTC()}
	if t.ClientID != "" {
		out.Kind, out.ClientId = oapi.TokenKindOauth, &t.ClientID
	}
	if !t.ExpiresAt.IsZero() {
		at := t.ExpiresAt.UTC()
		out.ExpiresAt = &at
	}
	return out
}

// CreateToken makes a scoped token for the caller's player.
func (s *Server) CreateToken(ctx context.Context, req oapi.CreateTokenRequestObject) (oapi.CreateTokenResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	r := players.TokenRequest{Scopes: scopesFromAPI(req.Body.Scopes)}
	if req.Body.Description != nil {
		r.Description = *req.Body.Description
	}
	if req.Body.ExpiresAt != nil {
		r.ExpiresAt = *req.Body.ExpiresAt
	}
	t, secret, err := s.players.CreateToken(ctx, callerOf(ctx).playerToken, r)
	if err != nil {
		return nil, err
	}
	return oapi.CreateToken201JSONResponse{Token: tokenToAPI(&t), Secret: secret}, nil
}

// ListTokens answers the caller's player's working scoped tokens.
func (s *Server) ListTokens(ctx context.Context, _ oapi.ListTokensRequestObject) (oapi.ListTokensResponseObject, error) {
	ts, err := s.players.Tokens(ctx, callerOf(ctx).playerToken)
	if err != nil {
		return nil, err
	}
	out := oapi.ListTokens200JSONResponse{Tokens: make([]oapi.Token, len(ts))}
	for i := range ts {
		out.Tokens[i] = tokenToAPI(&ts[i])
	}
	return out, nil
}

// RevokeToken revokes one of the caller's player's scoped tokens.
func (s *Server) RevokeToken(ctx context.Context, req oapi.RevokeTokenRequestObject) (oapi.RevokeTokenResponseObject, error) {
	if err := s.players.RevokeToken(ctx, callerOf(ctx).playerToken, req.Id); err != nil {
		return nil, err
	}
	return oapi.RevokeToken204Response{}, nil
}

// TestToken tells what the token in the body may do.
func (s *Server) TestToken(ctx context.Context, req oapi.TestTokenRequestObject) (oapi.TestTokenResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	a, err := s.players.Access(ctx, req.Body.Token)
	inactive := func(r oapi.TokenTestReason) (oapi.TestTokenResponseObject, error) {
		return oapi.TestToken200JSONResponse{Active: false, Reason: &r}, nil
	}
	switch {
	case errors.Is(err, players.ErrTokenExpired):
		return inactive(oapi.TokenTestReasonExpired)
	case errors.Is(err, players.ErrTokenRevoked):
		return inactive(oapi.TokenTestReasonRevoked)
	case errors.Is(err, players.ErrUnauthorized):
		return inactive(oapi.TokenTestReasonUnknown)
	case err != nil:
		return nil, err
	}
	scopes := scopesToAPI(a.Scopes())
	out := oapi.TestToken200JSONResponse{Active: true, PlayerId: &a.Player.ID, Scopes: &scopes}
	kind := oapi.TokenTestKindPlayer
	if !a.Own() {
		t := tokenToAPI(a.Token)
		kind, out.ClientId, out.ExpiresAt = oapi.TokenTestKind(t.Kind), t.ClientId, t.ExpiresAt
	}
	out.Kind = &kind
	return out, nil
}

// ApproveAuthorization records the signed-in player's approval of an
// app's request and answers the code and the redirect that carries it.
func (s *Server) ApproveAuthorization(ctx context.Context, req oapi.ApproveAuthorizationRequestObject) (oapi.ApproveAuthorizationResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	b := req.Body
	c, code, err := s.players.IssueCode(ctx, callerOf(ctx).playerToken, players.CodeRequest{ClientID: b.ClientId,
		RedirectURI: b.RedirectUri, Scopes: scopesFromAPI(b.Scopes), Challenge: b.CodeChallenge, Method: string(b.CodeChallengeMethod)})
	if err != nil {
		return nil, err
	}
	// IssueCode took the URI: it parses.
	u, err := url.Parse(c.RedirectURI)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("code", code)
	if b.State != nil {
		q.Set("state", *b.State)
	}
	u.RawQuery = q.Encode()
	return oapi.ApproveAuthorization201JSONResponse{Code: code, RedirectUri: u.String(), ExpiresAt: c.ExpiresAt.UTC()}, nil
}
