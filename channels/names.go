package channels

import "slices"

// Names are the channels of the service, in the order the API lists them.
var Names = []string{"website", "whatsapp", "instagram", "email"}

// Valid says whether name is a channel of the service.
func Valid(name string) bool { return slices.Contains(Names, name) }

// ImageProxyPrefix starts a reference, stored in an inbound mail's html, to
// a remote image msgsvc proxies: the email adapter writes it, reads turn it
// into a signed image proxy link.
const ImageProxyPrefix = "msgsvc-image:"
