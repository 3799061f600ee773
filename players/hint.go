package players

import "strings"

// IsPlayerToken reports whether token has the form of a player token (its
// prefix), so that one sent where a seat token goes can be told apart and
// the client told which header it belongs in.
func IsPlayerToken(token string) bool { return strings.HasPrefix(token, tokenPrefix) }
