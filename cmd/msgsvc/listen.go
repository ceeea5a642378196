package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/msgsvc/msgsvc/ops/listen"
)

// listenCmd is `msgsvc listen --api URL --key KEY --forward URL [--events
// a,b] [--secret S]` (see ops/listen). It needs none of the server's
// configuration; -h prints its flags and succeeds.
func listenCmd(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("listen", flag.ContinueOnError)
	fs.SetOutput(out)
	api := fs.String("api", "http://127.0.0.1:8080", "base URL of msgsvc")
	key := fs.String("key", getenv("MSGSVC_KEY"), "API key with webhooks:manage (or MSGSVC_KEY)")
	forward := fs.String("forward", "", "local URL each event is POSTed to")
	events := fs.String("events", "", "comma-separated event types (default: all)")
	secret := fs.String("secret", getenv("MSGSVC_WEBHOOK_SECRET"),
		"secret the forwards are signed with (or MSGSVC_WEBHOOK_SECRET; default: one derived from the key, the same every run)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: msgsvc listen --key KEY --forward URL [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *key == "" || *forward == "" {
		return errors.New("listen needs --key KEY (or MSGSVC_KEY) and --forward URL")
	}
	var types []string
	for _, t := range strings.Split(*events, ",") {
		if t = strings.TrimSpace(t); t != "" {
			types = append(types, t)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return listen.Run(ctx, listen.Options{API: *api, Key: *key, Forward: *forward, Events: types, Secret: *secret, Out: out})
}
