package channels

// SendParts sends the n provider messages of one message in order through
// send and gathers their ids. A refusal of the first part is the send's
// error (nothing went out); a refusal of a later one ends the send with the
// parts so far accepted and Receipt.Failed set (the message went out in
// part). A later part whose outcome is unknown (OutcomeUnknown) ends it the
// same way: it is never sent again.
func SendParts(n int, send func(i int) (string, error)) (*Receipt, error) {
	receipt := &Receipt{}
	for i := range n {
		id, err := send(i)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			receipt.Failed = AsRefusal(err)
			return receipt, nil
		}
		receipt.ProviderIDs = append(receipt.ProviderIDs, id)
	}
	return receipt, nil
}
