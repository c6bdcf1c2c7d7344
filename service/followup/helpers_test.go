package followup_test

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

// testConfig is a service configuration with short intervals.
func testConfig(name, driver, dsn string, embedded bool) *config.Config {
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

// recordingPoster records each post as "TARGET KEY SUBJECT" and returns
// a Message-ID naming the key.
type recordingPoster struct {
	mu    sync.Mutex
	posts []string
}

func (p *recordingPoster) Post(ctx context.Context, to target.Target, msg answer.Answer) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.posts = append(p.posts, to.String()+" "+msg.Key+" "+msg.Subject)
	return "<" + msg.Key + "@perfbot>", nil
}

func (p *recordingPoster) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.posts...)
}

// waitAnswered waits until every answer of key is delivered in its final
// version.
func waitAnswered(t *testing.T, st *store.Store, key string) {
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

// followUpPut waits until the follow-up of key is recorded as put: its
// edit or reply may be delivered (and seen by the test) before the tracker
// records it, and returns it as stored then.
func followUpPut(t *testing.T, st *store.Store, key string) (*store.FollowUp, error) {
	t.Helper()
	var fu *store.FollowUp
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for {
		fu, err = st.GetFollowUp(context.Background(), key)
		if err == nil && fu.State == store.FollowUpPosted || time.Now().After(deadline) {
			return fu, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
