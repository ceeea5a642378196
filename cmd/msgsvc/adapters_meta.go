package main

import (
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
)

// metaConfig is what the Graph API adapters take of the live configuration.
func metaConfig(l LiveConfig) meta.Config {
	return meta.Config{GraphURL: l.MetaGraphURL, InstagramURL: l.InstagramGraphURL, Version: l.MetaAPIVersion,
		Timeout: l.ProviderTimeout}
}

// instagramAdapter sends live Instagram messages through the host of each
// account's login.
func instagramAdapter(l LiveConfig) channels.Adapter { return instagram.New(metaConfig(l)) }
