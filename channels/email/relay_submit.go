package email

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
)

// Stage is the SMTP command a relay answered with a refusal.
type Stage string

// Stages of a submission.
const (
	StageConnect Stage = "connect"
	StageMail    Stage = "MAIL"
	StageRcpt    Stage = "RCPT"
	StageData    Stage = "DATA"
)

// SubmitError is a relay's refusal at one stage of a submission; SMTP is the
// relay's reply when it gave one (nil for a connection or TLS failure).
type SubmitError struct {
	Stage     Stage
	Recipient string
	SMTP      *smtp.SMTPError
	Err       error
	// Unknown: the relay took the whole mail (DATA and its final dot) and
	// the connection broke before its reply: it may deliver the mail.
	Unknown bool
}

// OutcomeUnknown says the relay may have taken the mail
// (channels.OutcomeUnknown).
func (e *SubmitError) OutcomeUnknown() bool { return e.Unknown }

func (e *SubmitError) Error() string {
	if e.Recipient != "" {
		return fmt.Sprintf("relay %s <%s>: %v", e.Stage, e.Recipient, e.Err)
	}
	return fmt.Sprintf("relay %s: %v", e.Stage, e.Err)
}

func (e *SubmitError) Unwrap() error { return e.Err }

func stageErr(stage Stage, rcpt string, err error) error {
	se := &SubmitError{Stage: stage, Recipient: rcpt, Err: err}
	var smtpErr *smtp.SMTPError
	if errors.As(err, &smtpErr) {
		se.SMTP = smtpErr
	}
	return se
}

// Submit hands one mail to the relay: envelope sender from, recipients to.
// It returns nil only once the relay answered 250 to the data. The context's
// deadline (2 minutes when it has none) bounds the whole submission.
func (r *Relay) Submit(ctx context.Context, from string, to []string, data []byte) error {
	_, err := r.SubmitReply(ctx, from, to, data)
	return err
}

// SubmitReply is Submit that also returns the text of the relay's 250 to
// the data (Amazon SES: "Ok {its message id}").
func (r *Relay) SubmitReply(ctx context.Context, from string, to []string, data []byte) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	fail := func(stage Stage, rcpt string, err error) error {
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within the provider timeout: %w", ctx.Err())
		}
		return stageErr(stage, rcpt, err)
	}
	c, err := r.dial(ctx)
	if err != nil {
		return "", fail(StageConnect, "", err)
	}
	defer c.Close()
	if err := c.Mail(from, nil); err != nil {
		return "", fail(StageMail, "", err)
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return "", fail(StageRcpt, rcpt, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return "", fail(StageData, "", err)
	}
	if _, err := w.Write(data); err != nil {
		return "", fail(StageData, "", err)
	}
	reply, err := w.CloseWithResponse()
	if err != nil {
		// Close writes the final dot and reads the reply: a reply is an
		// answer; no reply after the whole mail went out is an unknown
		// outcome, never a refusal (the mail may be on its way).
		err := fail(StageData, "", err)
		se := err.(*SubmitError)
		se.Unknown = se.SMTP == nil
		return "", err
	}
	_ = c.Quit() // the mail is accepted; a failed QUIT changes nothing
	return reply.StatusText, nil
}

// Recipients are the envelope recipients of a mail: To and Cc, once each.
func Recipients(to, cc []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range append(append([]string{}, to...), cc...) {
		if k := strings.ToLower(a); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}
