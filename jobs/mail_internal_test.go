package jobs

import (
	"maps"
	"testing"
)

// A worker's main server works its queue and the webhook queue, never the
// mail queue; the mail server works the mail queue alone.
func TestMailQueueIsWorkedApart(t *testing.T) {
	main := serverConfig(10, "q").Queues
	if want := map[string]int{"q": queueWeight, "q-webhooks": webhookWeight}; !maps.Equal(main, want) {
		t.Errorf("main server queues %v, want %v", main, want)
	}
	mail := mailServerConfig(MailConcurrency, "q")
	if want := map[string]int{"q-mail": 1}; !maps.Equal(mail.Queues, want) || mail.Concurrency != MailConcurrency {
		t.Errorf("mail server queues %v with %d slots, want %v with %d", mail.Queues, mail.Concurrency, want, MailConcurrency)
	}
}
