package send

import (
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// HumanAgentTag is Meta's tag of an Instagram DM a person wrote, sent
// outside the 24-hour window: it may go out up to 7 days after the
// customer's last message (messaging_type MESSAGE_TAG, tag HUMAN_AGENT).
// https://developers.facebook.com/docs/messenger-platform/send-messages/message-tags
const HumanAgentTag = "HUMAN_AGENT"

// humanAgentWindow is how long after the customer's last message a human
// agent's Instagram reply may go out.
const humanAgentWindow = 7 * 24 * time.Hour

// human says whether a send is a person's: an agent's reply (agentReply),
// or an API send marked tag "human_agent". The AI's replies and unmarked
// API sends are automated.
func (req *sendRequest) human() bool {
	if req.sender != nil {
		return req.sender.Type == "agent"
	}
	return req.in.Tag != nil
}

// tagRule: tag takes "human_agent" only, on Instagram direct messages.
func tagRule(req *sendRequest, comment bool) error {
	tag := req.in.Tag
	switch {
	case tag == nil:
		return nil
	case *tag != "human_agent":
		return apierr.New(apierr.InvalidRequest, "tag must be human_agent (a reply a person wrote).")
	case req.channel != "instagram" || comment:
		return apierr.New(apierr.InvalidRequest, "tag human_agent applies to Instagram direct messages only.")
	}
	return nil
}

// humanAgentRule decides an Instagram DM outside the 24-hour window: a
// person's reply goes out with the HUMAN_AGENT tag until 7 days after the
// customer's last message; anything else is window_closed.
func humanAgentRule(req *sendRequest, lastInbound *time.Time, now time.Time) error {
	within7 := lastInbound != nil && now.Before(lastInbound.Add(humanAgentWindow))
	switch {
	case within7 && req.human():
		req.humanAgentTag = true
		return nil
	case within7:
		return apierr.New(apierr.WindowClosed, "Over 24 hours since the customer last wrote; only a person's reply (tag \"human_agent\", or an agent's reply) may go out, until 7 days after it.")
	}
	return apierr.New(apierr.WindowClosed, "Over 7 days since the customer last wrote; Instagram needs the customer to write again.")
}
