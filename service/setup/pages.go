package setup

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/service"
	"github.com/perfbot/perfbot/web"
)

// AddPages serves the history's pages and API on the service's mux and
// reads the latest runs ahead for them until ctx ends; stop ends that and
// waits for it.
func AddPages(ctx context.Context, svc *service.Service, cfg *config.Config, log *slog.Logger) (stop func(), err error) {
	ws, err := web.New(svc.Store(), log.With("part", "web"))
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	// The pages scrub host paths as the service's answers do.
	ws.SetScrub(service.NewScrubber(service.HostPaths(service.DefaultCacheDir())...).String)
	ws.SetDigests(web.DigestPages(svc.Store(), cfg))
	ws.Register(svc)
	warm, cancel := context.WithCancel(ctx)
	var warming sync.WaitGroup
	warming.Go(func() { ws.Warm(warm) })
	return func() { cancel(); warming.Wait() }, nil
}
