// Package clients only regenerates the Go client with the server module's
// pinned oapi-codegen (go generate ./...): the client itself,
// clients/go, is a module of its own, so that a program importing it gets
// its few dependencies and nothing of the server's.
package clients

//go:generate go tool oapi-codegen -config go/ayoayo/oapi-codegen.yaml ../openapi.yaml
