package metahook

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// deliveryError is delivery.error of a failed status (docs/whatsapp.md, Meta error codes):
// the API code the provider's code maps to (meta.Classify; provider_error
// for a code no table names), with the provider's code and text as the
// message.
func deliveryError(errs []meta.WhatsAppError) *model.DeliveryError {
	if len(errs) == 0 {
		return &model.DeliveryError{Code: "provider_error", Message: "The provider reported the message failed without a reason."}
	}
	code := string(meta.Classify(errs[0].Code, 0))
	if code == string(apierr.ChannelUnavailable) {
		code = "provider_error"
	}
	return &model.DeliveryError{Code: code, Message: errs[0].Reason()}
}

// failedFor acts on what a failed status says about its recipient
// (docs/whatsapp.md): a 131050 sets the contact's marketing opt-out, a 131049
// (the recipient's per-user marketing limit, which counts marketing
// templates only:
// https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/)
// holds that recipient's marketing messages back like a rate limit, for
// channels.DefaultRetryAfter.
func (s *Service) failedFor(ctx context.Context, q repo.Queries, scope repo.Scope, conv *repo.Conversation, st *meta.WhatsAppStatus) error {
	if len(st.Errors) == 0 {
		return nil
	}
	code := st.Errors[0].Code
	if code != 131050 && code != 131049 {
		return nil
	}
	who := recipientOf(st.RecipientID, st.RecipientUserID)
	if who == "" {
		slog.Info("meta hook: failed status names no recipient", "recipient_id", st.RecipientID, "recipient_user_id", st.RecipientUserID)
		return nil
	}
	if code == 131049 {
		return q.SetHold(ctx, scope.WorkspaceID, conv.AccountID, repo.MarketingHold(who), s.Clock.Now().Add(channels.DefaultRetryAfter))
	}
	_, err := contact.SetOptOut(ctx, q, s.Events, scope, contact.OptOut{Channel: "whatsapp", Kind: contact.Marketing,
		Stop: true, Address: who}, s.Clock.Now())
	return err
}

// recipientOf is how the send side names a WhatsApp customer (its
// address, and the key of a hold): the phone in E.164 when the status
// carries one, else the business-scoped user id; "" when neither is
// usable. A recipient_id that is itself a user id (a send by recipient)
// counts as one.
func recipientOf(waID, userID string) string {
	if channels.IsWhatsAppUserID(waID) {
		waID, userID = "", waID
	}
	if waID != "" {
		if phone, err := contact.NormalizePhone("+" + strings.TrimPrefix(waID, "+")); err == nil {
			return phone
		}
	}
	if channels.IsWhatsAppUserID(userID) {
		return userID
	}
	return ""
}

// ReasonClass is the class of why a hook's processing failed, a bounded
// metric label: "credentials" (the account's credentials do not open),
// "provider" (a call to Meta failed), "database", or "processing" (the
// payload or our own rules).
func ReasonClass(err error) string {
	var metaErr *meta.Error
	var refusal *channels.Refusal
	var pqErr *pq.Error
	switch {
	case errors.Is(err, seal.ErrOpen), errors.Is(err, seal.ErrNoKey):
		return "credentials"
	case errors.As(err, &metaErr), errors.As(err, &refusal):
		return "provider"
	case errors.As(err, &pqErr), errors.Is(err, context.DeadlineExceeded):
		return "database"
	}
	return "processing"
}
