// Package apiclient is a Go client of the /v1 API generated from
// rest/openapi.json by oapi-codegen: proof that the document is one a
// generated client can live with. Its tests drive the README's tour through
// it and fail when the generated code is stale.
package apiclient

//go:generate go tool oapi-codegen -config config.yaml ../../openapi.json
