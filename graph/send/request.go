package send

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Send is POST /v1/messages: the field and channel checks in order, then
// quota, then the channel's adapter, in the steps of pipeline.go so that no
// transaction is open while a provider is called and a refused send keeps
// no message and counts nothing.
func (s *Service) Send(ctx context.Context, req Request) (*model.Message, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	return s.send(ctx, a, req, false, nil)
}

// Request is one send of a key: its body and the Idempotency-Key it runs
// under, as rest read it.
type Request struct {
	Input model.SendMessageInput
	// Binding is the claimed Idempotency-Key the reserve binds to its
	// message; nil without a key.
	Binding *KeyBinding
	// LongKey is the length of an Idempotency-Key over the limit, 0 when
	// none: the field rules answer invalid_idempotency_key in its place in
	// their order, so the send fails before it writes.
	LongKey int
	// Async queues the message for the pacer instead of calling the
	// provider (Prefer: respond-async, a batch's items; queue.go).
	Async bool
	// BatchID is the batch an asynchronous send belongs to; "" for none.
	BatchID string
}

// MarketingRequest is one send of the marketing endpoint (Request's
// fields, over its body).
type MarketingRequest struct {
	Input   model.MarketingMessageInput
	Binding *KeyBinding
	LongKey int
	Async   bool
}

// SendMarketing is POST /v1/whatsapp/marketing-messages: a send of a
// MARKETING template to a WhatsApp customer.
func (s *Service) SendMarketing(ctx context.Context, m MarketingRequest) (*model.Message, error) {
	in := m.Input
	if in.Template == nil {
		return nil, apierr.New(apierr.TextRequired, "A marketing message needs a template.")
	}
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	whatsapp := "whatsapp"
	send := model.SendMessageInput{Channel: &whatsapp, To: in.To, ContactID: in.ContactID,
		Template: in.Template, WhatsappAccountID: in.WhatsappAccountID}
	return s.send(ctx, a, Request{Input: send, Binding: m.Binding, LongKey: m.LongKey, Async: m.Async}, true, nil)
}

// send runs one send as a (a key, or the internal actor of Reply), for
// sender when the service speaks for the AI or an agent, and records its
// outcome.
func (s *Service) send(ctx context.Context, a *auth.Actor, in Request, marketing bool, sender *Sender) (*model.Message, error) {
	out, err := s.run(ctx, a, in, marketing, sender)
	s.observe(ctx, a, in.Input, out, err)
	return out, err
}
