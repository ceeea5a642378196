package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// loadOpenAPI parses rest/openapi.json and checks it is a valid document.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPI)
	if err != nil {
		t.Fatalf("rest/openapi.json does not load: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("rest/openapi.json is not a valid OpenAPI document: %v", err)
	}
	return doc
}

// TestOpenAPIMatchesRouter: every /v1 route the router serves is an
// operation of the document, and every operation is a route.
func TestOpenAPIMatchesRouter(t *testing.T) {
	doc := loadOpenAPI(t)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	served := map[string]bool{}
	routes, ok := (&Server{Resolver: &graph.Resolver{}}).Handler().(chi.Routes)
	if !ok {
		t.Fatal("Server.Handler is not a chi router; teach this test to walk it")
	}
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/v1/") {
			served[method+" "+strings.TrimSuffix(route, "/")] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range served {
		if !documented[r] {
			t.Errorf("%s is served but rest/openapi.json lacks it: add the operation (operationId, parameters, responses with the error codes it answers in x-error-codes)", r)
		}
	}
	for r := range documented {
		if !served[r] {
			t.Errorf("%s is in rest/openapi.json but no route serves it (rest/server.go Handler)", r)
		}
	}
}

// TestOpenAPIErrorCodes: the ErrorCode enum is exactly the apierr table;
// every operation has an operationId, lists the codes it can answer in
// x-error-codes (all in the table), and declares a response for the status
// of each.
func TestOpenAPIErrorCodes(t *testing.T) {
	doc := loadOpenAPI(t)
	var enum []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		enum = append(enum, fmt.Sprint(v))
	}
	var table []string
	for _, c := range apierr.Codes() {
		table = append(table, string(c))
	}
	sort.Strings(enum)
	for _, c := range table {
		if !slices.Contains(enum, c) {
			t.Errorf("code %s of graph/apierr is missing from the ErrorCode enum of rest/openapi.json", c)
		}
	}
	for _, c := range enum {
		if !slices.Contains(table, c) {
			t.Errorf("ErrorCode %s of rest/openapi.json is not in the graph/apierr table", c)
		}
	}
	ids := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" {
				t.Errorf("%s has no operationId", where)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("%s and %s share operationId %s", where, other, op.OperationID)
			}
			ids[op.OperationID] = where
			codes, err := operationErrorCodes(op)
			if err != nil || len(codes) == 0 {
				t.Errorf("%s: x-error-codes must list the codes it can answer (%v)", where, err)
			}
			for _, c := range codes {
				e, ok := apierr.Lookup(apierr.Code(c))
				if !ok {
					t.Errorf("%s: x-error-codes names %s, which the graph/apierr table lacks", where, c)
					continue
				}
				if op.Responses.Status(e.Status) == nil {
					t.Errorf("%s answers %s but declares no %d response", where, c, e.Status)
				}
			}
		}
	}
}

// operationErrorCodes reads an operation's x-error-codes.
func operationErrorCodes(op *openapi3.Operation) ([]string, error) {
	raw, err := json.Marshal(op.Extensions["x-error-codes"])
	if err != nil {
		return nil, err
	}
	var codes []string
	return codes, json.Unmarshal(raw, &codes)
}
