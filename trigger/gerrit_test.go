package trigger

import (
	"strings"
	"testing"
)

func TestGerritUsers(t *testing.T) {
	p := Policy{RequireWrite: true, ListedOnly: true, AllowUsers: []string{"gerrit:alice", "reviewboard:bob"}}
	if d := p.Tracker(Gerrit, "alice"); !d.Allowed {
		t.Errorf("alice: %+v", d)
	}
	d := p.Tracker(Gerrit, "bob")
	if d.Allowed || !strings.Contains(d.Refusal, "patch sets of changes") || !strings.Contains(d.Refusal, "Gerrit user name (bob)") {
		t.Errorf("bob, listed for Review Board only: %+v", d)
	}
}
