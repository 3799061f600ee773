// Package ayoayo is a Go client of the Ayoayo API, generated from
// openapi.yaml by oapi-codegen with the options a third party would pick
// (oapi-codegen.yaml), in a module of its own:
//
//	go get github.com/ayoayo/ayoayo/clients/go
//
// NewClientWithResponses(server) makes the client; each operation of the
// document is a method (CreateGameWithResponse, PlayGameMoveWithResponse,
// ...) whose answer has a typed field per documented status: JSON201 for a
// created game, ApplicationProblemJSON409 for a conflict, and so on. A
// seat's token goes in an Authorization header, added by a request editor
// (see the example). The code is regenerated from the repository's root
// with `go generate ./clients/`; clients/go runs it against a real server
// in CI.
package ayoayo
