package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
)

func (s *Server) sendMessage(r *http.Request, key sendKey) (int, any, error) {
	var in model.SendMessageInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Sends.Send(r.Context(), send.Request{Input: in, Binding: key.binding, LongKey: key.long,
		Async: preferAsync(r)})
	return sentStatus(out), out, err
}

// sentStatus is 201 for a message the provider took (or the sandbox), 202
// for one still sending (the provider's answer never came, and its status
// settles the message: docs/api.md, Delivery guarantees) or queued
// (Prefer: respond-async, a batch).
func sentStatus(m *model.Message) int {
	if m != nil && (m.Status == "sending" || m.Status == "queued") {
		return http.StatusAccepted
	}
	return http.StatusCreated
}

func (s *Server) sendMarketingMessage(r *http.Request, key sendKey) (int, any, error) {
	var in model.MarketingMessageInput
	if _, err := decode(r, &in); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Sends.SendMarketing(r.Context(), send.MarketingRequest{Input: in, Binding: key.binding,
		LongKey: key.long, Async: preferAsync(r)})
	return sentStatus(out), out, err
}

func (s *Server) getMessage(r *http.Request) (int, any, error) {
	out, err := s.Resolver.Query().Message(r.Context(), chi.URLParam(r, "id"))
	return http.StatusOK, out, err
}

func (s *Server) messagingWindow(r *http.Request) (int, any, error) {
	q, err := queryParams(r, "conversation_id", "channel", "to", "whatsapp_account_id")
	if err != nil {
		return 0, nil, err
	}
	in := model.MessagingWindowInput{ConversationID: q["conversation_id"], Channel: q["channel"], To: q["to"],
		WhatsappAccountID: q["whatsapp_account_id"]}
	out, err := s.Resolver.Query().MessagingWindow(r.Context(), in)
	return http.StatusOK, out, err
}

func (s *Server) listTemplates(r *http.Request) (int, any, error) {
	q, err := queryParams(r, "whatsapp_account_id", "status", "category")
	if err != nil {
		return 0, nil, err
	}
	filter := &model.TemplateFilter{WhatsappAccountID: q["whatsapp_account_id"], Status: q["status"], Category: q["category"]}
	out, err := s.Resolver.Query().WhatsappTemplates(r.Context(), filter)
	return http.StatusOK, out, err
}

func (s *Server) emailSenders(r *http.Request) (int, any, error) {
	if _, err := queryParams(r); err != nil {
		return 0, nil, err
	}
	out, err := s.Resolver.Query().EmailSenders(r.Context())
	return http.StatusOK, out, err
}
