package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// The REST calls perfbot makes (GitLab REST API v4), one try each: the
// errors are classified for retry.Do, and the callers decide whether to
// retry.

// MergeRequest is what perfbot reads of a merge request
// (GET /projects/:id/merge_requests/:iid).
type MergeRequest struct {
	IID    int64
	Title  string
	SHA    string // the head commit (sha)
	WebURL string // the merge request's page (web_url)
}

// MergeRequest reads merge request mr.
func (c *Client) MergeRequest(ctx context.Context, mr MR) (MergeRequest, error) {
	got, _, err := c.api.MergeRequests.GetMergeRequest(mr.Project, mr.IID, nil, gl.WithContext(ctx))
	if err != nil {
		return MergeRequest{}, classify(fmt.Errorf("get merge request %s: %w", mr, err))
	}
	return MergeRequest{IID: got.IID, Title: got.Title, SHA: got.SHA, WebURL: got.WebURL}, nil
}

// Note is a note on a merge request, as perfbot reads it.
type Note struct {
	ID     int64
	Body   string
	Author string // author.username
	System bool   // written by GitLab itself (system)
}

func noteOf(n *gl.Note) Note {
	return Note{ID: n.ID, Body: n.Body, Author: n.Author.Username, System: n.System}
}

// CreateNote writes a note on merge request mr
// (POST /projects/:id/merge_requests/:iid/notes).
func (c *Client) CreateNote(ctx context.Context, mr MR, body string) (Note, error) {
	n, _, err := c.api.Notes.CreateMergeRequestNote(mr.Project, mr.IID,
		&gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
	if err != nil {
		return Note{}, classify(fmt.Errorf("create note on %s: %w", mr, err))
	}
	return noteOf(n), nil
}

// UpdateNote replaces the body of note id on merge request mr
// (PUT /projects/:id/merge_requests/:iid/notes/:note_id).
func (c *Client) UpdateNote(ctx context.Context, mr MR, id int64, body string) (Note, error) {
	n, _, err := c.api.Notes.UpdateMergeRequestNote(mr.Project, mr.IID, id,
		&gl.UpdateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
	if err != nil {
		return Note{}, classify(fmt.Errorf("edit note %d on %s: %w", id, mr, err))
	}
	return noteOf(n), nil
}

// FindNote pages through merge request mr's notes, oldest first
// (GET /projects/:id/merge_requests/:iid/notes?order_by=created_at&sort=asc,
// following X-Next-Page), for the first one written by author that is not
// a system note and starts with prefix; nil when there is none.
func (c *Client) FindNote(ctx context.Context, mr MR, author, prefix string) (*Note, error) {
	opt := &gl.ListMergeRequestNotesOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1},
		OrderBy: gl.Ptr("created_at"), Sort: gl.Ptr("asc")}
	for {
		ns, resp, err := c.api.Notes.ListMergeRequestNotes(mr.Project, mr.IID, opt, gl.WithContext(ctx))
		if err != nil {
			return nil, classify(fmt.Errorf("list notes of %s: %w", mr, err))
		}
		for _, n := range ns {
			if !n.System && strings.EqualFold(n.Author.Username, author) && strings.HasPrefix(n.Body, prefix) {
				found := noteOf(n)
				return &found, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opt.Page = resp.NextPage
	}
}

// CommitStatus is a commit status to set.
type CommitStatus struct {
	State       gl.BuildStateValue // pending, running, success, failed or canceled
	Name        string
	Description string
	TargetURL   string // empty: none
}

// SetStatus sets a commit status on commit sha of project
// (POST /projects/:id/statuses/:sha). GitLab's refusal to move a pending
// or running status to pending again or to the state it has (400 "Cannot
// transition status") is no error: the status stays.
func (c *Client) SetStatus(ctx context.Context, project, sha string, st CommitStatus) error {
	opt := &gl.SetCommitStatusOptions{State: st.State, Name: gl.Ptr(st.Name), Description: gl.Ptr(st.Description)}
	if st.TargetURL != "" {
		opt.TargetURL = gl.Ptr(st.TargetURL)
	}
	_, _, err := c.api.Commits.SetCommitStatus(project, sha, opt, gl.WithContext(ctx))
	if refusedTransition(err) {
		return nil
	}
	if err != nil {
		return classify(fmt.Errorf("set commit status on %.12s: %w", sha, err))
	}
	return nil
}

// refusedTransition reports GitLab's 400 "Cannot transition status via
// :enqueue from :pending" (or :run from :running).
func refusedTransition(err error) bool {
	var er *gl.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusBadRequest &&
		strings.Contains(er.Message, "Cannot transition status")
}

// AccessLevel is user userID's access level on project, inherited from
// groups included (GET /projects/:id/members/all/:user_id); a user who is
// no member (404) has none.
func (c *Client) AccessLevel(ctx context.Context, project string, userID int64) (int, error) {
	m, _, err := c.api.ProjectMembers.GetInheritedProjectMember(project, userID, gl.WithContext(ctx))
	if StatusCode(err) == http.StatusNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, classify(fmt.Errorf("access level of user %d on %s: %w", userID, project, err))
	}
	return int(m.AccessLevel), nil
}

// Project reads project ("GROUP/PROJECT", GET /projects/:id) and returns
// its path with namespace.
func (c *Client) Project(ctx context.Context, project string) (string, error) {
	pr, _, err := c.api.Projects.GetProject(project, nil, gl.WithContext(ctx))
	if err != nil {
		return "", classify(fmt.Errorf("get project %s: %w", project, err))
	}
	return pr.PathWithNamespace, nil
}
