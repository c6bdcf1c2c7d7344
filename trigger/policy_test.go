package trigger

import (
	"strings"
	"testing"
)

func TestGitHub(t *testing.T) {
	strict := Policy{AllowUsers: []string{"@Carol", "github:dave", "jira:erin"}, RequireWrite: true}
	open := Policy{}
	tests := []struct {
		name        string
		policy      Policy
		login, perm string
		allowed     bool
		reason      string
	}{
		{"admin", strict, "alice", "admin", true, "admin permission"},
		{"maintain", strict, "alice", "maintain", true, "maintain permission"},
		{"write", strict, "alice", "WRITE", true, "write permission"},
		{"triage", strict, "bob", "triage", false, "only triage"},
		{"read", strict, "bob", "read", false, "only read"},
		{"none", strict, "bob", "none", false, "only none"},
		{"unknown level", strict, "bob", "owner", false, "unknown permission"},
		{"listed everywhere", strict, "carol", "none", true, "allow list"},
		{"listed for github", strict, "DAVE", "read", true, "allow list"},
		{"listed for jira only", strict, "erin", "read", false, "only read"},
		{"at sign", strict, "@alice", "write", true, "write"},
		{"empty", strict, "", "admin", false, "no GitHub user"},
		{"default policy", Default(), "bob", "read", false, "only read"},
		{"open", open, "mallory", "none", true, "not required"},
		{"listed only, listed", Policy{AllowUsers: []string{"carol"}, RequireWrite: true, ListedOnly: true}, "carol", "", true, "allow list"},
		{"listed only, admin", Policy{AllowUsers: []string{"carol"}, RequireWrite: true, ListedOnly: true}, "alice", "admin", false, "the only way"},
		{"listed only wins over open", Policy{ListedOnly: true}, "mallory", "admin", false, "not in the trigger allow list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.policy.GitHub(tt.login, tt.perm)
			if d.Allowed != tt.allowed || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("GitHub(%q, %q) = %+v, want allowed %v, reason containing %q", tt.login, tt.perm, d, tt.allowed, tt.reason)
			}
			if d.Allowed != (d.Refusal == "") {
				t.Errorf("Refusal %q with Allowed %v", d.Refusal, d.Allowed)
			}
		})
	}
	if d := strict.GitHub("bob", "read"); !strings.HasPrefix(d.Refusal, "Thank you for the request, @bob.") {
		t.Errorf("refusal = %q", d.Refusal)
	}
	if d := strict.GitHub("x<script>", "read"); strings.Contains(d.Refusal, "<script>") {
		t.Errorf("refusal repeats an odd user name: %q", d.Refusal)
	}
}

func TestNeedsPermission(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		login  string
		want   bool
	}{
		{"default", Default(), "alice", true},
		{"listed", Policy{AllowUsers: []string{"github:alice"}, RequireWrite: true}, "@Alice", false},
		{"listed only", Policy{RequireWrite: true, ListedOnly: true}, "alice", false},
		{"open", Policy{}, "alice", false},
		{"no user", Default(), " ", false},
	}
	for _, tt := range tests {
		if got := tt.policy.NeedsPermission(tt.login); got != tt.want {
			t.Errorf("%s: NeedsPermission(%q) = %v, want %v", tt.name, tt.login, got, tt.want)
		}
	}
}

func TestTracker(t *testing.T) {
	strict := Policy{AllowUsers: []string{"alice", "reviewboard:bob"}, RequireWrite: true}
	tests := []struct {
		name, venue, user string
		policy            Policy
		allowed           bool
		reason            string
	}{
		{"listed", JIRA, "Alice", strict, true, "JIRA user Alice is listed"},
		{"listed for review board", ReviewBoard, "bob", strict, true, "Review Board user bob is listed"},
		{"listed elsewhere", JIRA, "bob", strict, false, "not in the trigger allow list"},
		{"stranger", ReviewBoard, "mallory", strict, false, "not in"},
		{"empty", JIRA, " ", strict, false, "no JIRA user"},
		{"open", JIRA, "mallory", Policy{}, true, "not required"},
		{"any tracker user", ReviewBoard, "mallory", Policy{RequireWrite: true, AnyTrackerUser: true}, true, "not required"},
		{"any tracker user, still needs a name", JIRA, "", Policy{RequireWrite: true, AnyTrackerUser: true}, false, "no JIRA user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.policy.Tracker(tt.venue, tt.user)
			if d.Allowed != tt.allowed || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Tracker(%q, %q) = %+v, want allowed %v, reason containing %q", tt.venue, tt.user, d, tt.allowed, tt.reason)
			}
			// No one on a tracker can start a run for the author: the
			// refusal says how to get listed instead.
			if !d.Allowed && (!strings.HasPrefix(d.Refusal, "Thank you for the patch") || !strings.Contains(d.Refusal, "to its tracker_users") ||
				strings.Contains(d.Refusal, "can start it for you") || !strings.Contains(d.Refusal, venueName(tt.venue)+" user name")) {
				t.Errorf("refusal = %q", d.Refusal)
			}
		})
	}
}

func TestMail(t *testing.T) {
	p := Policy{AllowSenders: []string{"Dev@Store.example.org", "@committers.example.org", " "}}
	tests := []struct {
		sender  string
		allowed bool
		reason  string
	}{
		{"dev@store.example.org", true, "sender allow list"},
		{"A Dev <DEV@store.example.org>", true, "sender allow list"},
		{"x@committers.example.org", true, "allowed domain @committers.example.org"},
		{"x@sub.committers.example.org", false, "not in"},
		{"x@evilcommitters.example.org", false, "not in"},
		{"dev@store.example.org.evil.test", false, "not in"},
		{"not an address", false, "unreadable sender"},
		{"", false, "unreadable sender"},
	}
	for _, tt := range tests {
		t.Run(tt.sender, func(t *testing.T) {
			d := p.Mail(tt.sender)
			if d.Allowed != tt.allowed || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Mail(%q) = %+v, want allowed %v, reason containing %q", tt.sender, d, tt.allowed, tt.reason)
			}
			if !d.Allowed && (!strings.HasPrefix(d.Refusal, "Thank you for the patch.") || !strings.Contains(d.Refusal, "to perfbot's senders") || strings.Contains(d.Refusal, "can start it for you")) {
				t.Errorf("refusal = %q", d.Refusal)
			}
		})
	}
	if d := (Policy{}).Mail("anyone@example.org"); d.Allowed {
		t.Error("mail allowed without an allow list")
	}
}
