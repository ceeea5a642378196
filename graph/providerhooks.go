package graph

import (
	"context"
	"encoding/json"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// failedProviderHooks lists the stored provider webhooks whose processing
// failed, for the admin only.
func (r *Resolver) failedProviderHooks(ctx context.Context, limit *int) ([]*model.FailedProviderHook, error) {
	n, err := adminList(ctx, limit, "Failed provider webhooks are listed for the admin token only.")
	if err != nil {
		return nil, err
	}
	rows, err := r.Store.FailedProviderHooks(ctx, n)
	return view.Map(rows, failedHookView), err
}

// adminList checks that the caller is the admin (refused with refusal
// otherwise) and returns the length of a list of the service's failures:
// limit, 1 to 100, or 50 when not given.
func adminList(ctx context.Context, limit *int, refusal string) (int, error) {
	if err := adminOnly(ctx, refusal); err != nil {
		return 0, err
	}
	if limit == nil {
		return 50, nil
	}
	if *limit < 1 || *limit > 100 {
		return 0, apierr.New(apierr.InvalidRequest, "limit must be between 1 and 100.")
	}
	return *limit, nil
}

// adminOnly refuses (insufficient_scope, with refusal) a caller that is
// not the admin.
func adminOnly(ctx context.Context, refusal string) error {
	a, err := auth.From(ctx)
	if err != nil {
		return err
	}
	if !a.Admin {
		return apierr.New(apierr.InsufficientScope, "%s", refusal)
	}
	return nil
}

// failedHookView is a failed hook as the API shows it: never its payload,
// only what it is about.
func failedHookView(h *repo.FailedProviderHook) *model.FailedProviderHook {
	out := &model.FailedProviderHook{ID: h.ID, Source: h.Source, Kind: hookKind(h.Payload), ReceivedAt: model.NewTimestamp(h.ReceivedAt),
		Attempts: h.Attempts, LastError: h.LastError, State: "retrying"}
	if h.ProcessedAt != nil {
		at := model.NewTimestamp(*h.ProcessedAt)
		out.State, out.GivenUpAt = "given_up", &at
	}
	return out
}

// hookKind names what a Meta payload is about by its object.
func hookKind(payload []byte) string {
	var p struct {
		Object string `json:"object"`
	}
	_ = json.Unmarshal(payload, &p)
	switch p.Object {
	case meta.ObjectWhatsApp:
		return "whatsapp"
	case meta.ObjectInstagram, "page":
		return "instagram"
	}
	return "unknown"
}
