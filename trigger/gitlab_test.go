package trigger

import (
	"strings"
	"testing"
)

func TestGitLab(t *testing.T) {
	tests := []struct {
		name   string
		p      Policy
		user   string
		level  int
		least  int
		allow  bool
		reason string
	}{
		{"developer", Default(), "alice", GitLabDeveloper, GitLabDeveloper, true, "Developer role"},
		{"reporter", Default(), "bob", GitLabReporter, GitLabDeveloper, false, "only the Reporter role"},
		{"maintainer needed", Default(), "alice", GitLabDeveloper, GitLabMaintainer, false, "Maintainer is needed"},
		{"not a member", Default(), "eve", 0, GitLabDeveloper, false, "no member"},
		{"listed", Policy{RequireWrite: true, AllowUsers: []string{"gitlab:bob"}}, "bob", GitLabReporter, GitLabDeveloper, true, "listed"},
		{"github name is not a gitlab name", Policy{RequireWrite: true, ListedOnly: true, AllowUsers: []string{"github:bob"}}, "bob", GitLabOwner, GitLabDeveloper, false, "not in the trigger allow list"},
		{"open", Policy{}, "eve", 0, GitLabDeveloper, true, "no access level"},
		{"no user", Default(), "", GitLabOwner, GitLabDeveloper, false, "no GitLab user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.p.GitLab(tc.user, tc.level, tc.least)
			if d.Allowed != tc.allow || !strings.Contains(d.Reason, tc.reason) || (!d.Allowed && d.Refusal == "") {
				t.Errorf("%+v", d)
			}
		})
	}
	if Default().NeedsAccessLevel("") || !Default().NeedsAccessLevel("bob") || (Policy{RequireWrite: true, AllowUsers: []string{"gitlab:bob"}}).NeedsAccessLevel("bob") {
		t.Error("NeedsAccessLevel")
	}
}
