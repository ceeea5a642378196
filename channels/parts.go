package channels

import "fmt"

// SendParts sends the n provider messages of one message in order through
// send and gathers their ids. A refusal of the first part is the send's
// error (nothing went out); a refusal of a later one ends the send with the
// parts so far accepted and Receipt.Failed set (the message went out in
// part). A later part whose outcome is unknown (OutcomeUnknown) ends it the
// same way, as provider_unknown: it may have reached the customer and is
// never sent again.
func SendParts(n int, send func(i int) (string, error)) (*Receipt, error) {
	receipt := &Receipt{}
	for i := range n {
		id, err := send(i)
		switch {
		case err != nil && i == 0:
			return nil, err
		case err != nil && OutcomeUnknown(err):
			receipt.Failed = &Refusal{Code: "provider_unknown", Reason: fmt.Sprintf(
				"No answer came for part %d of %d; it may have reached the customer and is not sent again.", i+1, n)}
			return receipt, nil
		case err != nil:
			receipt.Failed = AsRefusal(err)
			return receipt, nil
		}
		receipt.ProviderIDs = append(receipt.ProviderIDs, id)
	}
	return receipt, nil
}
