package rest

import (
	"context"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/msgsvc/msgsvc/graph/generated"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// stuckLimits is graphqlLimits whose validation does not end until release
// is closed.
func stuckLimits(t *testing.T) (graphqlLimits, chan struct{}) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	l := newGraphQLLimits(generated.NewExecutableSchema(generated.Config{}).Schema(), lru.New[*ast.QueryDocument](10))
	l.validate = func(*ast.Schema, *ast.QueryDocument) gqlerror.List {
		<-release
		return nil
	}
	return l, release
}

func code(err *gqlerror.Error) any {
	if err == nil {
		return nil
	}
	return err.Extensions["code"]
}

// A validation that outlasts the budget is refused, and nothing is cached
// for gqlgen to run.
func TestGraphQLValidationBudget(t *testing.T) {
	l, _ := stuckLimits(t)
	l.budget = time.Millisecond
	p := &graphql.RawParams{Query: "{ usage { period } }"}
	if got := code(l.MutateOperationParameters(t.Context(), p)); got != codeValidationTimeout {
		t.Errorf("code %v", got)
	}
	if _, ok := l.cache.Get(t.Context(), p.Query); ok {
		t.Error("an unvalidated document was cached")
	}
}

// A client that leaves during validation gets no further: the wait ends
// with client_closed, and the field middleware runs no resolver.
func TestGraphQLClientGone(t *testing.T) {
	l, _ := stuckLimits(t)
	l.budget = time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got := code(l.MutateOperationParameters(ctx, &graphql.RawParams{Query: "{ usage { period } }"})); got != codeClientClosed {
		t.Errorf("code %v", got)
	}
	ran := false
	_, err := graphqlClientGone(ctx, func(context.Context) (any, error) { ran = true; return "x", nil })
	if ran || err == nil {
		t.Errorf("a field resolved after the client left: ran %v, err %v", ran, err)
	}
	if _, err := graphqlClientGone(t.Context(), func(context.Context) (any, error) { ran = true; return "x", nil }); !ran || err != nil {
		t.Errorf("a field of a live request: ran %v, err %v", ran, err)
	}
}

// A valid document is validated once: it is cached for gqlgen, and an
// invalid one is left for gqlgen to list its errors.
func TestGraphQLLimitsCacheValidated(t *testing.T) {
	l := newGraphQLLimits(generated.NewExecutableSchema(generated.Config{}).Schema(), lru.New[*ast.QueryDocument](10))
	for q, cached := range map[string]bool{"{ usage { period } }": true, "{ usage { nope } }": false} {
		if err := l.MutateOperationParameters(t.Context(), &graphql.RawParams{Query: q}); err != nil {
			t.Errorf("%s: %v", q, err)
		}
		if _, ok := l.cache.Get(t.Context(), q); ok != cached {
			t.Errorf("%s: cached %v", q, ok)
		}
	}
}
