package rest

import (
	"bytes"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/model"
)

func (s *Server) listWebhookEndpoints(r *http.Request) (int, any, error) {
	if _, err := queryParams(r); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Query().WebhookEndpoints(r.Context())
	return http.StatusOK, out, err
}

func (s *Server) createWebhookEndpoint(r *http.Request) (int, any, error) {
	var in model.CreateWebhookEndpointInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().CreateWebhookEndpoint(r.Context(), in)
	return http.StatusCreated, out, err
}

// patchWebhookEndpoint answers the id and the fields the body gave, as
// stored; a new URL also shows its verification, enabled its status.
func (s *Server) patchWebhookEndpoint(r *http.Request) (int, any, error) {
	var in model.UpdateWebhookEndpointInput
	present, err := decode(r, &in)
	if err != nil {
		return 0, nil, err
	}
	e, err := s.Resolver.Mutation().UpdateWebhookEndpoint(r.Context(), chi.URLParam(r, "id"), in)
	if err != nil {
		return 0, nil, err
	}
	out := echo(e.ID, e.Object, present, map[string]any{"url": e.URL, "description": e.Description, "events": e.Events,
		"channels": e.Channels, "website_ids": e.WebsiteIDs, "metadataOnly": e.MetadataOnly,
		"testEvents": e.TestEvents, "enabled": e.Status != "disabled"})
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

func (s *Server) rollWebhookSecret(r *http.Request) (int, any, error) {
	var in model.RollWebhookSecretInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
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
	body, err := readBody(r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	_, err = decodeBytes(body, &struct{}{})
	return err
}
