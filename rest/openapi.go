package rest

import (
	_ "embed"
	"net/http"
)

// openAPI is the OpenAPI 3.1 description of /v1 (docs/api.md, The OpenAPI
// document).
//
//go:embed openapi.json
var openAPI []byte

// serveOpenAPI needs no key: the description is public.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPI)
}

// OpenAPIDocument returns the OpenAPI document of /v1, for tests and tools.
func OpenAPIDocument() []byte { return openAPI }
