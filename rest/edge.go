package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Text that Postgres cannot store (a NUL, bytes that are not UTF-8) is
// refused at the edge, naming where it was, rather than answered 500 by the
// database.

// storable says whether Postgres can store s as text.
func storable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// impossibleID turns a path id Postgres cannot store into one it can that
// matches nothing (ids are ASCII), so the route answers its own 404.
func impossibleID(s string) string {
	if storable(s) {
		return s
	}
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
}

// checkEdge refuses a request whose query parameters or headers carry what
// Postgres cannot store, and makes its path ids safe.
func checkEdge(r *http.Request) error {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		for i, v := range rctx.URLParams.Values {
			rctx.URLParams.Values[i] = impossibleID(v)
		}
	}
	for name, values := range r.URL.Query() {
		if !storable(name) {
			return apierr.New(apierr.InvalidRequest, "A query parameter name is not valid UTF-8 text.")
		}
		for _, v := range values {
			if !storable(v) {
				return apierr.New(apierr.InvalidRequest, "Query parameter %s holds a NUL or bytes that are not UTF-8.", name)
			}
		}
	}
	for _, h := range []string{"Idempotency-Key", "Msgsvc-Workspace"} {
		if !storable(r.Header.Get(h)) {
			return apierr.New(apierr.InvalidRequest, "The %s header holds a NUL or bytes that are not UTF-8.", h)
		}
	}
	return nil
}

// checkText refuses a JSON body that is not UTF-8, or any of whose keys or
// strings holds a NUL (JSON's \u0000), naming the field.
func checkText(body []byte, fields map[string]any) error {
	if !utf8.Valid(body) {
		return apierr.New(apierr.InvalidRequest, "The request body is not valid UTF-8.")
	}
	if path := nulAt(fields, ""); path != "" {
		return apierr.New(apierr.InvalidRequest, "%s holds a NUL character (\\u0000), which text may not contain.", path)
	}
	return nil
}

// nulAt returns the path of the first string (or key) holding a NUL in a
// decoded JSON value, "" when there is none. Keys are visited in order, so
// the answer does not change between calls.
func nulAt(v any, path string) string {
	if !hasNul(v) {
		// The common case costs one walk, without paths or sorted keys.
		return ""
	}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch v := v.(type) {
	case string:
		if strings.ContainsRune(v, 0) {
			return cmpOr(path, "the body")
		}
	case []any:
		for i, item := range v {
			if p := nulAt(item, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.ContainsRune(k, 0) {
				return cmpOr(path, "the body") + " (a key)"
			}
			if p := nulAt(v[k], join(k)); p != "" {
				return p
			}
		}
	}
	return ""
}

// hasNul says whether a NUL is anywhere in a decoded JSON value, keys
// included.
func hasNul(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.ContainsRune(v, 0)
	case []any:
		for _, item := range v {
			if hasNul(item) {
				return true
			}
		}
	case map[string]any:
		for k, item := range v {
			if strings.ContainsRune(k, 0) || hasNul(item) {
				return true
			}
		}
	}
	return false
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// graphqlText refuses GraphQL field arguments (inline or from variables)
// holding a NUL, naming the argument; the JSON transport has already made
// bytes that are not UTF-8 into U+FFFD.
func graphqlText(ctx context.Context, next graphql.Resolver) (any, error) {
	if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Args != nil {
		args := map[string]any{}
		for k, v := range fc.Args {
			args[k] = plain(v)
		}
		if path := nulAt(args, ""); path != "" {
			return nil, apierr.New(apierr.InvalidRequest, "%s holds a NUL character (\\u0000), which text may not contain.", path)
		}
	}
	return next(ctx)
}

// plain is a resolved argument as JSON would hold it: maps, slices and
// strings, whatever Go type gqlgen made of it.
func plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
