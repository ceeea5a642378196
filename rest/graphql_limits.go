package rest

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/msgsvc/msgsvc/graph/generated"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// What one GraphQL operation may ask (docs/api.md, GraphQL limits). Each is
// checked before anything runs; a refusal is one GraphQL error whose
// extensions.code names the limit.
const (
	// graphqlMaxBytes bounds the query text (GraphiQL's introspection
	// query is about 1.5 KB).
	graphqlMaxBytes = 16 << 10
	// graphqlMaxTokens bounds what the parser reads.
	graphqlMaxTokens = 4000
	// graphqlMaxAliases bounds the aliases written in the document.
	graphqlMaxAliases = 30
	// graphqlMaxFields bounds the field selections with every fragment
	// spread expanded: validation compares fields pairwise, so this is
	// what keeps it short.
	graphqlMaxFields = 1000
	// graphqlMaxComplexity bounds the estimated work (graphqlComplexity):
	// 100 conversations with their customers and opt-outs cost about 1,000.
	graphqlMaxComplexity = 10000
	// graphqlValidationBudget is the most validation may take.
	graphqlValidationBudget = 2 * time.Second
	// graphqlUnboundedList is the size a list without a limit argument
	// (agents, knowledge entries, endpoints, senders) is costed at.
	graphqlUnboundedList = 20
)

// The extensions.code of each refusal; gqlgen's own are GRAPHQL_PARSE_FAILED,
// GRAPHQL_VALIDATION_FAILED and COMPLEXITY_LIMIT_EXCEEDED.
const (
	codeQueryTooLarge     = "QUERY_TOO_LARGE"
	codeTooManyAliases    = "TOO_MANY_ALIASES"
	codeTooManyFields     = "TOO_MANY_FIELDS"
	codeValidationTimeout = "VALIDATION_TIMEOUT"
	codeClientClosed      = "CLIENT_CLOSED_REQUEST"
)

// graphqlLimits parses and validates an operation before gqlgen does, with
// the limits above, and leaves the validated document in the query cache
// gqlgen reads, so gqlgen neither parses nor validates it again.
type graphqlLimits struct {
	schema   *ast.Schema
	cache    *lru.LRU[*ast.QueryDocument]
	budget   time.Duration
	validate func(*ast.Schema, *ast.QueryDocument) gqlerror.List
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = graphqlLimits{}

func newGraphQLLimits(schema *ast.Schema, cache *lru.LRU[*ast.QueryDocument]) graphqlLimits {
	return graphqlLimits{schema: schema, cache: cache, budget: graphqlValidationBudget,
		validate: func(s *ast.Schema, doc *ast.QueryDocument) gqlerror.List {
			return validator.ValidateWithRules(s, doc, rules.NewDefaultRules())
		}}
}

func (graphqlLimits) ExtensionName() string                   { return "msgsvc limits" }
func (graphqlLimits) Validate(graphql.ExecutableSchema) error { return nil }

func (l graphqlLimits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if len(p.Query) > graphqlMaxBytes {
		return limitError(codeQueryTooLarge, "The query is %d bytes; at most %d are read.", len(p.Query), graphqlMaxBytes)
	}
	if _, ok := l.cache.Get(ctx, p.Query); ok {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, graphqlMaxTokens)
	if err != nil {
		return nil // gqlgen parses it again and says what is wrong
	}
	if n := countAliases(doc); n > graphqlMaxAliases {
		return limitError(codeTooManyAliases, "The query has %d aliases; at most %d are allowed.", n, graphqlMaxAliases)
	}
	if n := countFields(doc, graphqlMaxFields); n > graphqlMaxFields {
		return limitError(codeTooManyFields, "The query selects more than %d fields with its fragments expanded.", graphqlMaxFields)
	}
	ctx, cancel := context.WithTimeout(ctx, l.budget)
	defer cancel()
	done := make(chan gqlerror.List, 1)
	go func() { done <- l.validate(l.schema, doc) }()
	select {
	case errs := <-done:
		if len(errs) == 0 {
			l.cache.Add(ctx, p.Query, doc)
		}
		return nil // errors: gqlgen validates it again and lists them all
	case <-ctx.Done():
		if context.Cause(ctx) == context.DeadlineExceeded {
			return limitError(codeValidationTimeout, "Validating the query took longer than %s.", l.budget)
		}
		return clientClosed()
	}
}

func limitError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, code)
	return err
}

// countAliases counts the aliases written in the document.
func countAliases(doc *ast.QueryDocument) int {
	n := 0
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if s.Alias != "" && s.Alias != s.Name {
					n++
				}
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		walk(f.SelectionSet)
	}
	return n
}

// countFields counts the fields each operation selects with its fragment
// spreads expanded, stopping once the count passes max (fragments spread in
// fragments grow exponentially). A spread of a fragment already being
// expanded is a cycle, which validation reports; it counts nothing here.
func countFields(doc *ast.QueryDocument, max int) int {
	n := 0
	open := map[string]bool{}
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			if n > max {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				n++
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				f := doc.Fragments.ForName(s.Name)
				if f == nil || open[s.Name] {
					continue
				}
				open[s.Name] = true
				walk(f.SelectionSet)
				open[s.Name] = false
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet)
	}
	return n
}

// graphqlComplexity prices the fields that read many rows: a page by the
// rows it may return (its limit, or the default), a list without a limit at
// graphqlUnboundedList. Every other field costs 1 plus its selections,
// gqlgen's default.
func graphqlComplexity() generated.ComplexityRoot {
	var c generated.ComplexityRoot
	page := func(child int, limit *int, fallback int) int {
		n := fallback
		if limit != nil && *limit > 0 {
			n = *limit
		}
		return 1 + n*child
	}
	c.Query.Conversations = func(child int, _ *model.ConversationFilter, limit *int, _ *string) int {
		return page(child, limit, 25)
	}
	c.Query.Messages = func(child int, _ string, limit *int, _ *string, _ *bool) int { return page(child, limit, 25) }
	c.Query.Contacts = func(child int, _ *model.ContactFilter, limit *int, _ *string) int {
		return page(child, limit, 25)
	}
	c.Query.WebhookDeliveries = func(child int, _ *model.WebhookDeliveryFilter, limit *int, _ *string) int {
		return page(child, limit, 25)
	}
	c.Query.HumanQueue = func(child int, limit *int) int { return page(child, limit, 50) }
	unbounded := func(child int) int { return 1 + graphqlUnboundedList*child }
	c.Query.Agents = unbounded
	c.Query.KnowledgeEntries = unbounded
	c.Query.WebhookEndpoints = unbounded
	c.Query.EmailSenders = unbounded
	c.Query.Members = unbounded
	c.Query.MySessions = unbounded
	c.Query.WhatsappTemplates = func(child int, _ *model.TemplateFilter) int { return unbounded(child) }
	return c
}

// graphqlClientGone stops resolving once the client has gone (the
// request's context is cancelled): no field not yet started runs, so no
// further query starts for an answer nobody reads.
func graphqlClientGone(ctx context.Context, next graphql.Resolver) (any, error) {
	if ctx.Err() != nil {
		return nil, clientClosed()
	}
	return next(ctx)
}

func clientClosed() *gqlerror.Error {
	return limitError(codeClientClosed, "The client closed the request.")
}
