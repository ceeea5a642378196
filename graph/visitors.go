package graph

import "github.com/msgsvc/msgsvc/graph/visitor"

// VisitorService is website chat's visitor side (see package visitor).
func (r *Resolver) VisitorService() *visitor.Service {
	return &visitor.Service{Store: r.Store, Clock: r.Clock, Events: r.events(), Inbound: r.inbound(),
		Files: r.files(), Seal: r.Seal}
}
