// Package ayoayo is a Go client of the Ayoayo API, generated from
// openapi.yaml by oapi-codegen with the options a third party would pick
// (oapi-codegen.yaml). clients/go uses it against a real server in CI.
package ayoayo

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../../../openapi.yaml
