package trigger

import "fmt"

// GitLab is the venue name of GitLab users in AllowUsers ("gitlab:alice").
const GitLab = "gitlab"

// GitLab access levels, as the project members API reports them.
const (
	GitLabGuest      = 10
	GitLabReporter   = 20
	GitLabDeveloper  = 30
	GitLabMaintainer = 40
	GitLabOwner      = 50
)

// GitLabRole names an access level ("Developer").
func GitLabRole(level int) string {
	switch level {
	case 5:
		return "Minimal Access"
	case GitLabGuest:
		return "Guest"
	case GitLabReporter:
		return "Reporter"
	case 15:
		return "Planner"
	case GitLabDeveloper:
		return "Developer"
	case GitLabMaintainer:
		return "Maintainer"
	case GitLabOwner:
		return "Owner"
	}
	return fmt.Sprintf("access level %d", level)
}

// GitLab decides whether GitLab user, whose access level on the project
// is level, may start a run when the policy asks for at least least
// (Developer, 30, unless configured): as on GitHub, a listed user always
// may; with ListedOnly only they may; without RequireWrite anyone may.
func (p Policy) GitLab(user string, level, least int) Decision {
	if user == "" {
		return refuse("no GitLab user given", gitlabRefusal("", least))
	}
	if p.listed(GitLab, user) {
		return allow(fmt.Sprintf("GitLab user %s is listed in the trigger allow list", user))
	}
	if p.ListedOnly {
		return refuse(fmt.Sprintf("GitLab user %s is not in the trigger allow list, the only way to start runs", user), gitlabRefusal(user, least))
	}
	if !p.RequireWrite {
		return allow(fmt.Sprintf("GitLab user %s may start runs: no access level is required", user))
	}
	if level >= least {
		return allow(fmt.Sprintf("GitLab user %s has the %s role", user, GitLabRole(level)))
	}
	if level <= 0 {
		return refuse(fmt.Sprintf("GitLab user %s is no member of the project", user), gitlabRefusal(user, least))
	}
	return refuse(fmt.Sprintf("GitLab user %s has only the %s role, %s is needed", user, GitLabRole(level), GitLabRole(least)),
		gitlabRefusal(user, least))
}

// NeedsAccessLevel reports whether GitLab needs the user's access level:
// false when the policy decides without it, so the API call is skipped.
func (p Policy) NeedsAccessLevel(user string) bool {
	return user != "" && p.RequireWrite && !p.ListedOnly && !p.listed(GitLab, user)
}

func gitlabRefusal(user string, least int) string {
	greet := "Thank you for the request."
	if plainName().MatchString(user) {
		greet = fmt.Sprintf("Thank you for the request, @%s.", user)
	}
	return greet + fmt.Sprintf(" perfbot benchmarks unmerged changes only when a project member with the %s role or more "+
		"(or someone listed in perfbot's configuration) asks, so it has not started this run. A maintainer can start it for you.", GitLabRole(least))
}
