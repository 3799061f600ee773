package api

// The OAuth 2.1 endpoints: the token endpoint (RFC 6749 4.1.3, with RFC
// 7636's code_verifier), revocation (RFC 7009) and the metadata document
// (RFC 8414). They are not operations of openapi.yaml: their requests are
// form-encoded and their errors are OAuth's JSON ({error,
// error_description}, plus this API's stable `code`), which OAuth client
// libraries read, not problems; the document's oauth2 security scheme
// names them. The authorization page is the reference client's
// (/oauth/authorize, api/web), which approves through
// POST /v1/oauth/authorizations.

import (
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/players"
)

// The OAuth endpoints' paths.
const (
	oauthTokenPath     = "/oauth/token"
	oauthRevokePath    = "/oauth/revoke"
	oauthMetadataPath  = "/.well-known/oauth-authorization-server"
	oauthAuthorizePath = "/oauth/authorize" // the reference client's page
)

// oauthRoutes are the OAuth endpoints a server routes besides the
// document's operations.
var oauthRoutes = []string{http.MethodPost + " " + oauthTokenPath, http.MethodPost + " " + oauthRevokePath,
	http.MethodGet + " " + oauthMetadataPath, http.MethodHead + " " + oauthMetadataPath}

// oauthError is an error as RFC 6749 5.2 writes it, with this API's
// stable code beside OAuth's word (clients ignore members they do not
// know).
type oauthError struct {
	Status      int    `json:"-"`
	Word        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	Code        string `json:"code"`
}

func (e *oauthError) Error() string { return e.Word + ": " + e.Description }

func invalidRequest(code, description string) error {
	return &oauthError{Status: http.StatusBadRequest, Word: "invalid_request", Description: description, Code: code}
}

// oauthErrors answers the exchange's failures: RFC 6749 calls each of
// them invalid_grant; the code tells them apart.
var oauthErrors = []struct {
	err  error
	code string
}{
	{players.ErrCodeUnknown, "code_unknown"},
	{players.ErrCodeReused, "code_reused"},
	{players.ErrCodeExpired, "code_expired"},
	{players.ErrVerifierMismatch, "pkce_mismatch"},
	{players.ErrRedirectMismatch, "redirect_uri_mismatch"},
	{players.ErrClientMismatch, "client_mismatch"},
}

// oauthErrorOf is the answer to err from the token or revocation
// endpoint.
func oauthErrorOf(err error) *oauthError {
	if oe, ok := errors.AsType[*oauthError](err); ok {
		return oe
	}
	for _, e := range oauthErrors {
		if errors.Is(err, e.err) {
			return &oauthError{Status: http.StatusBadRequest, Word: "invalid_grant", Description: err.Error(), Code: e.code}
		}
	}
	// The database's failures (or a server started without players): the
	// same request may be sent again.
	if e, ok := fault.Of(err); ok {
		switch e.Kind() {
		case fault.Unavailable, fault.Uncertain, fault.Full, fault.Busy:
			return &oauthError{Status: http.StatusServiceUnavailable, Word: "temporarily_unavailable", Description: "try again later", Code: e.Code()}
		}
	}
	return &oauthError{Status: http.StatusInternalServerError, Word: "server_error", Description: internalDetail, Code: "internal_error"}
}

// writeOAuthError answers err in OAuth's words; a 5xx is logged in full.
func (s *Server) writeOAuthError(c echo.Context, err error) error {
	oe := oauthErrorOf(err)
	if oe.Status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "oauth request failed", "error", err.Error(), "status", oe.Status, "path", c.Request().URL.Path)
	}
	noStore(c)
	return c.JSON(oe.Status, oe)
}

// noStore marks an answer that holds a secret (RFC 6749 5.1).
func noStore(c echo.Context) {
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	c.Response().Header().Set("Pragma", "no-cache")
}

// oauthForm reads a form-encoded body (RFC 6749 3.2: POST,
// application/x-www-form-urlencoded); each parameter at most once.
func oauthForm(c echo.Context) (url.Values, error) {
	r := c.Request()
	mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if err != nil || mt != echo.MIMEApplicationForm {
		return nil, invalidRequest("unsupported_media_type", "the body must be application/x-www-form-urlencoded")
	}
	if err := r.ParseForm(); err != nil {
		return nil, invalidRequest("malformed_form", "the body is not a form: "+err.Error())
	}
	for k, vs := range r.PostForm {
		if len(vs) > 1 {
			return nil, invalidRequest("repeated_parameter", "the parameter "+k+" is sent more than once")
		}
	}
	return r.PostForm, nil
}

// clientID is the client's id: the form's client_id, or the user of HTTP
// Basic authentication (RFC 6749 2.3.1), which some libraries send for
// any client; a public client has no secret to check. Both must agree.
func clientID(c echo.Context, form url.Values) (string, error) {
	id := form.Get("client_id")
	if user, _, ok := c.Request().BasicAuth(); ok {
		u, err := url.QueryUnescape(user)
		if err != nil || id != "" && u != id {
			return "", invalidRequest("client_mismatch", "client_id and the Basic authentication's user differ")
		}
		id = u
	}
	if id == "" {
		return "", invalidRequest("missing_parameter", "client_id is required")
	}
	return id, nil
}

// oauthToken is the token endpoint: an authorization code and its
// verifier for an access token.
func (s *Server) oauthToken(c echo.Context) error {
	form, err := oauthForm(c)
	if err != nil {
		return s.writeOAuthError(c, err)
	}
	if gt := form.Get("grant_type"); gt != "authorization_code" {
		return s.writeOAuthError(c, &oauthError{Status: http.StatusBadRequest, Word: "unsupported_grant_type",
			Description: "grant_type must be authorization_code (there are no refresh tokens)", Code: "unsupported_grant_type"})
	}
	client, err := clientID(c, form)
	if err != nil {
		return s.writeOAuthError(c, err)
	}
	for _, p := range []string{"code", "redirect_uri", "code_verifier"} {
		if form.Get(p) == "" {
			return s.writeOAuthError(c, invalidRequest("missing_parameter", p+" is required"))
		}
	}
	t, secret, err := s.players.Exchange(c.Request().Context(), form.Get("code"), client, form.Get("redirect_uri"), form.Get("code_verifier"))
	if err != nil {
		return s.writeOAuthError(c, err)
	}
	noStore(c)
	return c.JSON(http.StatusOK, map[string]any{
		"access_token": secret,
		"token_type":   "Bearer",
		"expires_in":   int(t.ExpiresAt.Sub(t.CreatedAt).Seconds()),
		"scope":        players.FormatScopes(t.Scopes),
	})
}

// oauthRevoke is the revocation endpoint: 200 for any token, known or
// not (RFC 7009 2.2); a player's own token is not revoked here (rotate
// it instead).
func (s *Server) oauthRevoke(c echo.Context) error {
	form, err := oauthForm(c)
	if err != nil {
		return s.writeOAuthError(c, err)
	}
	token := form.Get("token")
	if token == "" {
		return s.writeOAuthError(c, invalidRequest("missing_parameter", "token is required"))
	}
	if err := s.players.RevokeSecret(c.Request().Context(), token); err != nil {
		return s.writeOAuthError(c, err)
	}
	return c.NoContent(http.StatusOK)
}

// oauthMetadata is the authorization server's metadata (RFC 8414). The
// issuer is the origin the request was sent to.
func (s *Server) oauthMetadata(c echo.Context) error {
	origin := c.Scheme() + "://" + c.Request().Host
	scopes := make([]string, len(players.AllScopes))
	for i, sc := range players.AllScopes {
		scopes[i] = string(sc)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "max-age="+strconv.Itoa(3600))
	return c.JSON(http.StatusOK, map[string]any{
		"issuer":                                     origin,
		"authorization_endpoint":                     origin + oauthAuthorizePath,
		"token_endpoint":                             origin + oauthTokenPath,
		"revocation_endpoint":                        origin + oauthRevokePath,
		"scopes_supported":                           scopes,
		"response_types_supported":                   []string{"code"},
		"grant_types_supported":                      []string{"authorization_code"},
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      []string{"none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"service_documentation":                      origin + "/docs",
	})
}
