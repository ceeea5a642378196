package graph

import (
	"context"
	"errors"

	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// failedInboundMails lists the inbound mails given up after too many failed
// attempts, for the admin only.
func (r *Resolver) failedInboundMails(ctx context.Context, limit *int) ([]*model.FailedInboundMail, error) {
	n, err := adminList(ctx, limit, "Failed inbound mails are listed for the admin token only.")
	if err != nil {
		return nil, err
	}
	rows, err := r.Store.FailedInboundMails(ctx, mail.MaxMailAttempts, n)
	return view.Map(rows, failedMailView), err
}

// retryInboundMail sets a given-up mail's attempts back to 0, for the admin
// only: the sweep then processes it again.
func (r *Resolver) retryInboundMail(ctx context.Context, id string) (*model.FailedInboundMail, error) {
	if err := adminOnly(ctx, "Inbound mails are retried for the admin token only."); err != nil {
		return nil, err
	}
	m, err := r.Store.RetryInboundMail(ctx, id, mail.MaxMailAttempts, r.Clock())
	if errors.Is(err, repo.ErrNotFound) {
		return nil, apierr.New(apierr.InvalidRequest, "No inbound mail %s was given up; only a given-up mail is retried.", id)
	}
	if err != nil {
		return nil, err
	}
	return failedMailView(m), nil
}

// failedMailView is a failed mail as the API shows it: its envelope, size
// and last error, never its content (not even its headers).
func failedMailView(m *repo.FailedInboundMail) *model.FailedInboundMail {
	out := &model.FailedInboundMail{ID: m.ID, MailFrom: m.MailFrom, Recipients: view.OrEmpty(m.Recipients),
		WorkspaceIds: view.OrEmpty(m.WorkspaceIDs), Size: m.Size, ReceivedAt: model.NewTimestamp(m.ReceivedAt), Attempts: m.Attempts}
	if m.LastError != nil {
		out.LastError = *m.LastError
	}
	return out
}
