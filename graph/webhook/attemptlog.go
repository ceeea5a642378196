package webhook

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// answerExcerpt is how much of an answer an attempt's record keeps: the
// portal shows the first 1 KB.
const answerExcerpt = 1024

// excerpt is the start of an answer as text: at most answerExcerpt bytes,
// cut at a character, invalid UTF-8 and NUL (which Postgres text refuses)
// replaced; nil for an empty answer.
func excerpt(body []byte) *string {
	if len(body) == 0 {
		return nil
	}
	b := body[:min(len(body), answerExcerpt)]
	for len(b) < len(body) && len(b) > 0 && !utf8.RuneStart(body[len(b)]) {
		b = b[:len(b)-1]
	}
	s := strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "\uFFFD")
	return &s
}

// attemptLog is the record of an attempt that sent something, for the
// delivery's attempts (webhook_attempts); nil when nothing was sent. It
// holds what the endpoint answered, never what was sent.
func (o outcome) attemptLog(deliveryID string, now time.Time) *repo.WebhookAttemptLog {
	if o.skipped {
		return nil
	}
	at := o.at
	if at.IsZero() {
		at = now
	}
	l := &repo.WebhookAttemptLog{DeliveryID: deliveryID, AttemptedAt: at,
		LatencyMS: int(o.Latency.Milliseconds()), ResponseBody: excerpt(o.Body)}
	if o.Status != 0 {
		l.ResponseStatus = &o.Status
	}
	if o.problem != "" {
		l.Error = &o.problem
	}
	return l
}

// AttemptLogs returns the attempts of some deliveries of the caller's
// workspace and mode, by delivery id, each oldest first (a page's worth
// in one query: graph's loader).
func (s *Service) AttemptLogs(ctx context.Context, deliveryIDs []string) (map[string][]*model.WebhookDeliveryAttempt, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.WebhookAttemptLogs(ctx, a.Scope(), deliveryIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]*model.WebhookDeliveryAttempt, len(deliveryIDs))
	for _, id := range deliveryIDs {
		out[id] = []*model.WebhookDeliveryAttempt{}
	}
	for i := range rows {
		r := &rows[i]
		out[r.DeliveryID] = append(out[r.DeliveryID], toAttempt(r))
	}
	return out, nil
}

func toAttempt(r *repo.WebhookAttemptLog) *model.WebhookDeliveryAttempt {
	return &model.WebhookDeliveryAttempt{AttemptedAt: model.NewTimestamp(r.AttemptedAt),
		ResponseStatus: r.ResponseStatus, LatencyMs: r.LatencyMS, ResponseBody: r.ResponseBody, Error: r.Error}
}
