// Package oapi is the code oapi-codegen generates from openapi.yaml: the
// models, the echo server interface with its strict (typed request and
// response) wrapper, and the document itself, embedded. It is a package of
// its own so that api holds only what people write; api names these types
// qualified (oapi.Game). It is not called gen because api already imports
// puzzles/gen under that name.
package oapi

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../../openapi.yaml
//go:generate go tool oapi-codegen -config oapi-codegen-spec.yaml ../../openapi.yaml
