package ai

import "context"

// Turn is one message of the conversation as a responder sees it.
type Turn struct {
	// Customer is true for the customer's messages, false for the
	// business's (AI, agents, API).
	Customer bool
	Text     string
}

// Input is what a responder answers: the customer's message, with the
// workspace's knowledge and instructions and the recent conversation.
type Input struct {
	Instructions string
	Message      string
	Knowledge    []Doc
	// History is the conversation's recent messages, oldest first, ending
	// with Message.
	History []Turn
}

// Decision is a responder's answer: a reply to send, or a hand-off to a
// person.
type Decision struct {
	Reply   string
	HandOff bool
	// Reason says why, for logs ("asked for a person", "no confident
	// match", "model error: …").
	Reason string
}

// Responder answers a customer's message.
type Responder interface {
	Respond(ctx context.Context, in Input) (Decision, error)
}

// Builtin is the embedded responder: BM25 over the knowledge entries, no
// network and no model.
type Builtin struct{}

// Respond hands off when the customer asks for a person or no entry reaches
// Threshold, and otherwise answers with the best entry's answer.
func (Builtin) Respond(_ context.Context, in Input) (Decision, error) {
	if AsksForPerson(in.Message) {
		return Decision{HandOff: true, Reason: "asked for a person"}, nil
	}
	hit, ok := NewIndex(in.Knowledge).Best(in.Message)
	if !ok {
		return Decision{HandOff: true, Reason: "no confident match"}, nil
	}
	return Decision{Reply: hit.Doc.Answer, Reason: "knowledge " + hit.Doc.ID}, nil
}

// HandOffLine is what the customer reads when a person takes over.
const HandOffLine = "Thanks for your patience. I'm passing you to a member of our team, who will reply here shortly."
