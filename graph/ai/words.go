package ai

import "strings"

// handOffWords ask for a person (whole words, any case).
var handOffWords = map[string]bool{
	"human": true, "humans": true, "agent": true, "agents": true, "person": true, "people": true,
	"representative": true, "representatives": true, "operator": true, "someone": true, "staff": true,
}

// AsksForPerson says whether a message asks for a person: one of the
// hand-off words, as a whole word, in any case.
func AsksForPerson(text string) bool {
	for _, w := range words(text) {
		if handOffWords[strings.Trim(w, "'")] {
			return true
		}
	}
	return false
}

// stopwords carry no meaning for retrieval.
var stopwords = set(`a about after again all am an and any are as at be been before being both but by
can can't could did do does doing don't for from had has have having he her here hers him his how i i'd
i'm i've if in into is it it's its just let me more most my no nor not of off on once only or other our
ours out over own please same she should so some such than thank thanks that the their them then there
these they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours hi hello hey there'd want need like get got know tell much many
does did also still yet any anything`)

// synonyms map stems onto one shared term, so a customer's words find an
// entry written in others (a small, general support vocabulary).
var synonyms = map[string]string{
	// opening hours
	"hour": "open", "close": "open", "closed": "open", "time": "open", "schedule": "open",
	"weekend": "open", "business": "open", "available": "open", "availability": "open",
	// shipping
	"ship": "ship", "shipment": "ship", "deliver": "ship", "delivery": "ship", "arrive": "ship",
	"arrival": "ship", "dispatch": "ship", "dispatched": "ship", "post": "ship", "mail": "ship",
	"send": "ship", "sent": "ship", "courier": "ship", "transit": "ship", "package": "ship",
	"parcel": "ship",
	// returns
	"return": "return", "refund": "return", "exchange": "return", "money": "return",
	"back": "return", "reimburse": "return", "reimbursement": "return",
	// durations
	"long": "long", "fast": "long", "quick": "long", "quickly": "long", "soon": "long", "day": "long",
	"week": "long", "take": "long",
	// items
	"item": "item", "product": "item", "order": "item", "purchase": "item", "bought": "item",
	"thing": "item", "article": "item",
	// pay
	"pay": "pay", "payment": "pay", "card": "pay", "paypal": "pay", "invoice": "pay", "charge": "pay",
	"price": "price", "cost": "price", "fee": "price", "expensive": "price",
	// account
	"password": "password", "login": "password", "log": "password", "sign": "password", "reset": "password",
	"forgot": "password", "forgotten": "password",
	// cancel
	"cancel": "cancel", "cancellation": "cancel", "stop": "cancel", "unsubscribe": "cancel",
	// address and contact
	"locat": "address", "location": "address", "store": "address", "shop": "address", "address": "address",
	"phone": "contact", "call": "contact", "email": "contact", "reach": "contact", "contact": "contact",
	// tracking
	"track": "track", "tracking": "track", "status": "track",
	// broken
	"broken": "damage", "damag": "damage", "damage": "damage", "defective": "damage", "faulty": "damage",
	"cracked": "damage",
}

func set(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}
