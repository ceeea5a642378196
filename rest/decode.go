package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// MaxBody is the largest request body accepted.
const MaxBody = 15 << 20

// readBody reads a request body up to MaxBody.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		return nil, bodyUnread(err)
	}
	if len(body) > MaxBody {
		return nil, apierr.New(apierr.InvalidRequest, "The request body is larger than 15 MB.")
	}
	return body, nil
}

// decode reads a JSON object body into dst, refusing what is not JSON,
// unknown fields and wrong types with a message that names the field. It
// returns the names of the fields present.
func decode(r *http.Request, dst any) (map[string]bool, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	return decodeBytes(body, dst)
}

func decodeBytes(body []byte, dst any) (map[string]bool, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, apierr.New(apierr.InvalidRequest, "The request needs a JSON object body.")
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return nil, apierr.New(apierr.InvalidRequest, "The request body must be a JSON object.")
	}
	if err := checkText(body, fields); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return nil, apierr.New(apierr.InvalidRequest, "%s", describeJSONError(err))
	}
	present := make(map[string]bool, len(fields))
	for k := range fields {
		present[k] = true
	}
	return present, nil
}

func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("%s must be %s, not %s.", typeErr.Field, jsonType(typeErr.Type.String()), typeErr.Value)
	}
	msg := err.Error()
	if field, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Sprintf("Unknown field %s.", field)
	}
	return "The request body is not valid JSON: " + strings.TrimPrefix(msg, "json: ")
}

func jsonType(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64":
		return "an integer"
	case "[]string":
		return "an array of strings"
	}
	if strings.HasPrefix(goType, "[]") {
		return "an array"
	}
	return "an object"
}

// queryParams reads optional query parameters, refusing unknown ones.
func queryParams(r *http.Request, allowed ...string) (map[string]*string, error) {
	out := map[string]*string{}
	for name, values := range r.URL.Query() {
		known := false
		for _, a := range allowed {
			known = known || a == name
		}
		if !known {
			return nil, apierr.New(apierr.InvalidRequest, "Unknown query parameter %s.", name)
		}
		v := values[0]
		out[name] = &v
	}
	return out, nil
}

// limitParam parses the limit query parameter.
func limitParam(q map[string]*string) (*int, error) {
	v := q["limit"]
	if v == nil {
		return nil, nil
	}
	n, err := strconv.Atoi(*v)
	if err != nil {
		return nil, apierr.New(apierr.InvalidLimit, "limit must be a whole number between 1 and 100.")
	}
	return &n, nil
}

// echo is a PATCH answer: the id and object, and each field the body gave
// with its stored value.
func echo(id, object string, present map[string]bool, stored map[string]any) map[string]any {
	out := map[string]any{"id": id, "object": object}
	for name, value := range stored {
		if present[name] {
			out[name] = value
		}
	}
	return out
}
