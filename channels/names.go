package channels

import "slices"

// Names are the channels of the service, in the order the API lists them.
var Names = []string{"website", "whatsapp", "instagram", "email"}

// Valid says whether name is a channel of the service.
func Valid(name string) bool { return slices.Contains(Names, name) }
