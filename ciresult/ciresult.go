// Package ciresult holds the files a CI run leaves behind: the answer
// directory of "perfbot compare --answer-out" (answer.md, answer.json,
// result.json) and, for a fork's pull request, the artifact that
// "perfbot post-artifact" reads back, checks against its workflow_run
// event and posts from a workflow that holds a write token.
package ciresult

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/target"
	"github.com/perfbot/perfbot/venue/github"
)

// The files of an answer directory (compare --answer-out) and of a fork
// pull request's artifact.
const (
	AnswerJSONFile = "answer.json"
	AnswerMDFile   = "answer.md"
	ResultFile     = "result.json"
	MetaFile       = "meta.json"
)

// Bounds on what is read from an artifact: the answer's JSON (GitHub's
// comment limit, in bytes of UTF-8 and JSON escapes, with room), the small
// metadata file and the event's payload.
const (
	MaxAnswerJSON = 1 << 20
	MaxMetaJSON   = 4 << 10
	maxEventJSON  = 8 << 20
)

// Result is result.json: the outcome of a compare for CI outputs.
type Result struct {
	Key     string `json:"key"`
	State   string `json:"state"`
	Summary string `json:"summary"`
	Commit  string `json:"commit,omitempty"`
	Better  int    `json:"better"`
	Worse   int    `json:"worse"`
	Same    int    `json:"same"`
	Noisy   int    `json:"noisy"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// WriteDir writes msg, as posted to GitHub, into dir: answer.md (its full
// GitHub Markdown), answer.json (the answer without attachments, which
// ReadArtifact reads) and result.json (state, summary and cmp's counts).
func WriteDir(dir string, msg answer.Answer, cmp *compare.Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	msg.Attachments = nil
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	t := cmp.Total()
	res := Result{Key: msg.Key, State: string(msg.State), Summary: msg.Summary, Commit: msg.Commit,
		Better: t.Better, Worse: t.Worse, Same: t.Same, Noisy: t.Noisy, Added: t.Added, Removed: t.Removed}
	result, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		AnswerJSONFile: body,
		AnswerMDFile:   []byte(msg.Full(github.Format) + "\n"),
		ResultFile:     append(result, '\n'),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Meta is meta.json of a fork pull request's artifact, written by the
// action's compare step.
type Meta struct {
	PR      int    `json:"pr"`
	HeadSHA string `json:"head_sha"`
	Key     string `json:"key"`
}

// WorkflowRun is what is read of a workflow_run event's payload.
type WorkflowRun struct {
	WorkflowRun *struct {
		Event        string `json:"event"`
		HeadSHA      string `json:"head_sha"`
		PullRequests []struct {
			Number int `json:"number"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// isSHA reports whether s is a full commit hash: 40 lowercase hex digits.
// (Checked by hand, as keyPR is: a package-level regexp would be compiled
// at every start of perfbot; the start-allocation test keeps that small.)
func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// keyPR returns the pull request number of an answer key of the form
// gha-N or gha-N-SUFFIX (SUFFIX: 1 to 64 of A-Z a-z 0-9 . _ -), as digits.
func keyPR(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "gha-")
	if !ok {
		return "", false
	}
	n := 0
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	digits, suffix := rest[:n], rest[n:]
	if digits == "" {
		return "", false
	}
	if suffix == "" {
		return digits, true
	}
	suffix, ok = strings.CutPrefix(suffix, "-")
	if !ok || len(suffix) < 1 || len(suffix) > 64 {
		return "", false
	}
	for _, c := range []byte(suffix) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '_' || c == '-') {
			return "", false
		}
	}
	return digits, true
}

// An Artifact is a fork pull request's answer, checked against the
// workflow_run event it is posted from.
type Artifact struct {
	Meta Meta
	// Answer holds only the GitHub Markdown, cut to GitHub's comment
	// limit, and no attachments.
	Answer answer.Answer
	// PR is the pull request, github:OWNER/REPO#N.
	PR target.Target
	// Listed tells whether the event lists the pull request; GitHub
	// leaves the list empty for a fork's head branch, and then the pull
	// request's head must be asked for (CheckHead).
	Listed bool
}

// Load reads the artifact in dir and the workflow_run event at eventPath
// and checks them against each other: the artifact must be for the
// commit the run was for. It runs nothing from the artifact: it reads
// size-bounded JSON files.
func Load(dir, eventPath string) (*Artifact, error) {
	ev, err := ReadWorkflowRun(eventPath)
	if err != nil {
		return nil, err
	}
	meta, msg, err := ReadArtifact(dir)
	if err != nil {
		return nil, err
	}
	if meta.HeadSHA != ev.WorkflowRun.HeadSHA {
		return nil, fmt.Errorf("%s: head_sha %s is not the workflow run's head %s", filepath.Join(dir, MetaFile), meta.HeadSHA, ev.WorkflowRun.HeadSHA)
	}
	if msg.Commit != "" && msg.Commit != meta.HeadSHA {
		return nil, fmt.Errorf("%s: the answer speaks for commit %s, not the workflow run's head %s", filepath.Join(dir, AnswerJSONFile), msg.Commit, meta.HeadSHA)
	}
	return &Artifact{Meta: meta, Answer: msg, PR: target.PR(ev.Repository.FullName, meta.PR), Listed: ev.NamesPR(meta.PR)}, nil
}

// HeadReader tells a pull request's head commit (github.Client does).
type HeadReader interface {
	HeadSHA(ctx context.Context, pr target.Target) (string, error)
}

// CheckHead asks gh which commit the pull request's head is and fails
// unless it is the artifact's.
func (a *Artifact) CheckHead(ctx context.Context, gh HeadReader) error {
	head, err := gh.HeadSHA(ctx, a.PR)
	if err != nil {
		return err
	}
	if head != a.Meta.HeadSHA {
		return fmt.Errorf("pull request %s has head %s, not the workflow run's %s (pushed since, or the artifact names another pull request): not posted", a.PR.Where(), head, a.Meta.HeadSHA)
	}
	return nil
}

// NamesPR reports whether the workflow run's event lists pull request n.
func (ev *WorkflowRun) NamesPR(n int) bool {
	for _, pr := range ev.WorkflowRun.PullRequests {
		if pr.Number == n {
			return true
		}
	}
	return false
}

// ReadWorkflowRun reads and checks a workflow_run event's payload.
func ReadWorkflowRun(path string) (*WorkflowRun, error) {
	data, err := readBounded(path, maxEventJSON)
	if err != nil {
		return nil, err
	}
	var ev WorkflowRun
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("%s: not a workflow_run event's JSON: %w", path, err)
	}
	switch {
	case ev.WorkflowRun == nil:
		return nil, fmt.Errorf("%s: no workflow_run: post-artifact runs on a workflow_run event", path)
	case ev.WorkflowRun.Event != "pull_request":
		return nil, fmt.Errorf("%s: workflow_run.event is %q, want pull_request", path, ev.WorkflowRun.Event)
	case !isSHA(ev.WorkflowRun.HeadSHA):
		return nil, fmt.Errorf("%s: workflow_run.head_sha %q: want 40 hex digits", path, ev.WorkflowRun.HeadSHA)
	case strings.Count(ev.Repository.FullName, "/") != 1:
		return nil, fmt.Errorf("%s: repository.full_name %q: want OWNER/REPO", path, ev.Repository.FullName)
	}
	return &ev, nil
}

// ReadArtifact reads and checks meta.json and answer.json of dir: regular
// files within their bounds, a key of the action's form for the pull
// request named, a known state, and of the answer only its GitHub Markdown,
// cut to GitHub's comment limit, and no attachments.
func ReadArtifact(dir string) (Meta, answer.Answer, error) {
	var meta Meta
	mpath := filepath.Join(dir, MetaFile)
	data, err := readBounded(mpath, MaxMetaJSON)
	if err != nil {
		return meta, answer.Answer{}, err
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return meta, answer.Answer{}, fmt.Errorf("%s: %w", mpath, err)
	}
	if meta.PR <= 0 {
		return meta, answer.Answer{}, fmt.Errorf("%s: pr %d: want a pull request number", mpath, meta.PR)
	}
	if !isSHA(meta.HeadSHA) {
		return meta, answer.Answer{}, fmt.Errorf("%s: head_sha %q: want 40 hex digits", mpath, meta.HeadSHA)
	}
	if pr, ok := keyPR(meta.Key); !ok || pr != strconv.Itoa(meta.PR) {
		return meta, answer.Answer{}, fmt.Errorf("%s: key %q: want gha-%d or gha-%d-SUFFIX", mpath, meta.Key, meta.PR, meta.PR)
	}
	apath := filepath.Join(dir, AnswerJSONFile)
	if data, err = readBounded(apath, MaxAnswerJSON); err != nil {
		return meta, answer.Answer{}, err
	}
	var got answer.Answer
	if err := json.Unmarshal(data, &got); err != nil {
		return meta, answer.Answer{}, fmt.Errorf("%s: %w", apath, err)
	}
	if got.Key != meta.Key {
		return meta, answer.Answer{}, fmt.Errorf("%s: key %q is not meta.json's %q", apath, got.Key, meta.Key)
	}
	switch got.State {
	case answer.StateSuccess, answer.StateFailure, answer.StateError:
	default:
		return meta, answer.Answer{}, fmt.Errorf("%s: state %q: want success, failure or error", apath, got.State)
	}
	if !isSHA(got.Commit) && got.Commit != "" {
		return meta, answer.Answer{}, fmt.Errorf("%s: commit %q: want 40 hex digits", apath, got.Commit)
	}
	full := got.Full(github.Format)
	if full == "" {
		return meta, answer.Answer{}, fmt.Errorf("%s: no %s rendering", apath, github.Format)
	}
	msg := answer.Answer{Key: got.Key, Subject: oneLine(got.Subject, 200), Summary: oneLine(got.Summary, 200), State: got.State, Commit: got.Commit}
	msg.Set(github.Format, answer.Rendering{Full: cutRunes(full, github.CommentLimit-200), Short: cutRunes(got.Short(github.Format), github.CommentLimit-200)})
	return meta, msg, nil
}

// readBounded reads the regular file path, refusing a symbolic link, a
// device or one larger than limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d allowed", path, st.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than the %d bytes allowed", path, limit)
	}
	return data, nil
}

// oneLine is s on one line, cut to n characters.
func oneLine(s string, n int) string {
	return cutRunes(strings.Join(strings.Fields(s), " "), n)
}

// cutRunes cuts s to at most n characters.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
