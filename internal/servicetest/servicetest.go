// Package servicetest holds the helpers the tests of the service and its
// follow-ups share: a configuration with short intervals, a poster that
// records what it is handed, and a wait for an answer's delivery.
package servicetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/internal/testwait"
	"github.com/perfbot/perfbot/store"
	"github.com/perfbot/perfbot/target"
)

// Config is a service configuration named name with short intervals, on
// the store driver opens at dsn (a URL for PostgreSQL, a path otherwise),
// with embedded workers or without.
func Config(name, driver, dsn string, embedded bool) *config.Config {
	cfg := &config.Config{}
	cfg.Service.Name = name
	cfg.Service.Listen = "127.0.0.1:0"
	cfg.Service.Heartbeat = 250 * time.Millisecond
	cfg.Service.StaleAfter = 2 * time.Second
	cfg.Service.JobTimeout = time.Minute
	cfg.Service.EmbeddedWorkers = &embedded
	cfg.Store.Driver = driver
	if driver == store.Postgres {
		cfg.Store.URL = dsn
	} else {
		cfg.Store.Path = dsn
	}
	cfg.Defaults()
	return cfg
}

// RecordingPoster records each post as "TARGET KEY SUBJECT" and returns a
// Message-ID naming the key.
type RecordingPoster struct {
	mu    sync.Mutex
	posts []string
}

// Post records msg as posted to to.
func (p *RecordingPoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.posts = append(p.posts, to.String()+" "+msg.Key+" "+msg.Subject)
	return "<" + msg.Key + "@perfbot>", nil
}

// List returns the posts so far, oldest first.
func (p *RecordingPoster) List() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.posts...)
}

// WaitAnswered waits until every answer of key is delivered in its final
// version, as long as child processes progress (testwait). When t has
// failed it logs the outbox.
func WaitAnswered(t *testing.T, st *store.Store, key string) {
	t.Helper()
	defer func() {
		if t.Failed() {
			as, _ := st.Answers(context.Background())
			t.Logf("outbox: %+v", as)
		}
	}()
	testwait.Until(t, 30*time.Second, "the answer of "+key+" to be delivered", func() bool {
		ok, err := st.Answered(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
}
