package rest

import (
	"bytes"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

func (s *Server) listWebhookEndpoints(r *http.Request) (int, any, error) {
	if _, err := queryParams(r); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Query().WebhookEndpoints(r.Context())
	return http.StatusOK, out, err
}

// endpointFlags takes an endpoint's two flags in the spelling of the
// endpoint object (metadata_only, test_events) beside the request's
// (metadataOnly, testEvents, as the API reference names them); answers use
// the object's.
type endpointFlags struct {
	MetadataOnly *bool `json:"metadata_only"`
	TestEvents   *bool `json:"test_events"`
}

// merge moves a flag given as metadata_only or test_events into the input's
// field and marks it present under that name; both spellings of one flag in
// one body is a mistake.
func (f endpointFlags) merge(present map[string]bool, metadataOnly, testEvents **bool) error {
	for _, flag := range []struct {
		camel, snake string
		value        *bool
		dst          **bool
	}{{"metadataOnly", "metadata_only", f.MetadataOnly, metadataOnly}, {"testEvents", "test_events", f.TestEvents, testEvents}} {
		if present[flag.camel] && present[flag.snake] {
			return apierr.New(apierr.InvalidRequest, "Give %s or %s, not both.", flag.camel, flag.snake)
		}
		if present[flag.camel] {
			present[flag.snake] = true
		}
		if flag.value != nil {
			*flag.dst = flag.value
		}
	}
	return nil
}

func (s *Server) createWebhookEndpoint(r *http.Request) (int, any, error) {
	var in struct {
		model.CreateWebhookEndpointInput
		endpointFlags
	}
	present, err := decode(r, &in)
	if err != nil {
		return 0, nil, err
	}
	if err := in.merge(present, &in.CreateWebhookEndpointInput.MetadataOnly, &in.CreateWebhookEndpointInput.TestEvents); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().CreateWebhookEndpoint(r.Context(), in.CreateWebhookEndpointInput)
	return http.StatusCreated, out, err
}

// patchWebhookEndpoint answers the id and the fields the body gave, as
// stored and named in the endpoint object; a new URL also shows its
// verification, enabled its status.
func (s *Server) patchWebhookEndpoint(r *http.Request) (int, any, error) {
	var in struct {
		model.UpdateWebhookEndpointInput
		endpointFlags
	}
	present, err := decode(r, &in)
	if err != nil {
		return 0, nil, err
	}
	if err := in.merge(present, &in.UpdateWebhookEndpointInput.MetadataOnly, &in.UpdateWebhookEndpointInput.TestEvents); err != nil {
		return 0, nil, err
	}
	e, err := s.Resolver.Mutation().UpdateWebhookEndpoint(r.Context(), chi.URLParam(r, "id"), in.UpdateWebhookEndpointInput)
	if err != nil {
		return 0, nil, err
	}
	out := echo(e.ID, e.Object, present, map[string]any{"url": e.URL, "description": e.Description, "events": e.Events,
		"channels": e.Channels, "website_ids": e.WebsiteIDs, "metadata_only": e.MetadataOnly,
		"test_events": e.TestEvents, "enabled": e.Status != "disabled"})
	if present["url"] || present["enabled"] {
		out["status"], out["disabled_reason"], out["verified_at"] = e.Status, e.DisabledReason, e.VerifiedAt
	}
	if e.Verification != nil {
		out["verification"] = e.Verification
	}
	return http.StatusOK, out, nil
}

func (s *Server) deleteWebhookEndpoint(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Mutation().DeleteWebhookEndpoint(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

// rollWebhookSecret takes an optional body: without one (or with {}), the
// old secret co-signs for the default grace.
func (s *Server) rollWebhookSecret(r *http.Request) (int, any, error) {
	var in model.RollWebhookSecretInput
	present, err := optionalBody(r, &in)
	if err != nil {
		return 0, nil, err
	}
	if present["grace_hours"] && in.GraceHours == nil {
		return 0, nil, apierr.New(apierr.InvalidRequest, "grace_hours must be a whole number from 0 to 168; leave it out for 24.")
	}
	out, err := s.Resolver.Mutation().RollWebhookSecret(r.Context(), chi.URLParam(r, "id"), in)
	return http.StatusOK, out, err
}

// verifyWebhookEndpoint runs the handshake again; the body, if any, must be
// an empty object.
func (s *Server) verifyWebhookEndpoint(r *http.Request) (int, any, error) {
	if err := emptyBody(r); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().VerifyWebhookEndpoint(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

func (s *Server) listWebhookDeliveries(r *http.Request) (int, any, error) {
	q, err := queryParams(r, "endpoint_id", "status", "limit", "starting_after")
	if err != nil {
		return 0, nil, err
	}
	limit, err := limitParam(q)
	if err != nil {
		return 0, nil, err
	}
	filter := &model.WebhookDeliveryFilter{EndpointID: q["endpoint_id"], Status: q["status"]}
	out, err := s.Resolver.Query().WebhookDeliveries(r.Context(), filter, limit, q["starting_after"])
	return http.StatusOK, out, err
}

func (s *Server) replayWebhookDelivery(r *http.Request) (int, any, error) {
	if err := emptyBody(r); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().ReplayWebhookDelivery(r.Context(), chi.URLParam(r, "id"))
	return http.StatusAccepted, out, err
}

// emptyBody checks the body of a route that takes none: nothing, or an
// empty JSON object; anything else is refused as on every route.
func emptyBody(r *http.Request) error {
	_, err := optionalBody(r, &struct{}{})
	return err
}

// optionalBody decodes a body that may be left out into dst and returns
// the names of the fields present, as decode does.
func optionalBody(r *http.Request, dst any) (map[string]bool, error) {
	body, err := readBody(r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return nil, err
	}
	return decodeBytes(body, dst)
}
