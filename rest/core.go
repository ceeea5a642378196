package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/model"
)

func (s *Server) channels(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().Channels(r.Context())
	return http.StatusOK, out, err
}

func (s *Server) usage(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().Usage(r.Context())
	return http.StatusOK, out, err
}

func (s *Server) listConversations(r *http.Request) (int, any, error) {
	q, err := queryParams(r, "channel", "status", "website_id", "updated_since", "limit", "starting_after")
	if err != nil {
		return 0, nil, err
	}
	limit, err := limitParam(q)
	if err != nil {
		return 0, nil, err
	}
	filter := &model.ConversationFilter{Channel: q["channel"], Status: q["status"], WebsiteID: q["website_id"], UpdatedSince: q["updated_since"]}
	out, err := s.Resolver.Query().Conversations(r.Context(), filter, limit, q["starting_after"])
	return http.StatusOK, out, err
}

func (s *Server) getConversation(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().Conversation(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

func (s *Server) patchConversation(r *http.Request) (int, any, error) {
	var in model.UpdateConversationInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().UpdateConversation(r.Context(), chi.URLParam(r, "id"), in)
	return http.StatusOK, out, err
}

func (s *Server) listMessages(r *http.Request) (int, any, error) {
	q, err := queryParams(r, "limit", "starting_after")
	if err != nil {
		return 0, nil, err
	}
	limit, err := limitParam(q)
	if err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Query().Messages(r.Context(), chi.URLParam(r, "id"), limit, q["starting_after"], nil)
	return http.StatusOK, out, err
}

func (s *Server) listContacts(r *http.Request) (int, any, error) {
	q, err := queryParams(r, "email", "phone", "updated_since", "limit", "starting_after")
	if err != nil {
		return 0, nil, err
	}
	limit, err := limitParam(q)
	if err != nil {
		return 0, nil, err
	}
	filter := &model.ContactFilter{Email: q["email"], Phone: q["phone"], UpdatedSince: q["updated_since"]}
	out, err := s.Resolver.Query().Contacts(r.Context(), filter, limit, q["starting_after"])
	return http.StatusOK, out, err
}

func (s *Server) getContact(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().Contact(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

func (s *Server) createContact(r *http.Request) (int, any, error) {
	var in model.CreateContactInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().CreateContact(r.Context(), in)
	return http.StatusCreated, out, err
}

// patchContact answers the id and the fields the body gave, as stored.
func (s *Server) patchContact(r *http.Request) (int, any, error) {
	var in model.UpdateContactInput
	present, err := decode(r, &in)
	if err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().UpdateContact(r.Context(), chi.URLParam(r, "id"), in)
	if err != nil {
		return 0, nil, err
	}
	c := out.Contact
	return http.StatusOK, echo(c.ID, c.Object, present, map[string]any{"name": c.Name, "email": c.Email, "phone": c.Phone,
		"whatsapp_opt_out": c.OptOuts.Whatsapp, "email_opt_out": c.OptOuts.Email, "instagram_opt_out": c.OptOuts.Instagram}), nil
}

func (s *Server) deleteContact(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Mutation().DeleteContact(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

func (s *Server) getEvent(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().Event(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

func (s *Server) inbound(r *http.Request) (int, any, error) {
	var in model.SimulateInboundInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Mutation().SimulateInbound(r.Context(), in)
	return http.StatusCreated, out, err
}
