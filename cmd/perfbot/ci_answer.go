package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
	"github.com/perfbot/perfbot/config"
	"github.com/perfbot/perfbot/review"
	"github.com/perfbot/perfbot/review/github"
)

// The files of an answer directory (compare --answer-out) and of a fork
// pull request's artifact.
const (
	answerJSONFile = "answer.json"
	answerMDFile   = "answer.md"
	resultFile     = "result.json"
	metaFile       = "meta.json"
)

// Bounds on what post-artifact reads from an artifact: the answer's JSON
// (GitHub's comment limit, in bytes of UTF-8 and JSON escapes, with room)
// and the small metadata file.
const (
	maxAnswerJSON = 1 << 20
	maxMetaJSON   = 4 << 10
)

// answerResult is result.json: the outcome of a compare for CI outputs.
type answerResult struct {
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

// writeAnswerDir writes msg, as posted to GitHub, into dir: answer.md (its
// full GitHub Markdown), answer.json (the answer without attachments, which
// post-artifact reads) and result.json (state, summary and counts).
func writeAnswerDir(dir string, msg answer.Answer, cmp *compare.Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--answer-out: %w", err)
	}
	msg.Attachments = nil
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("--answer-out: %w", err)
	}
	t := cmp.Total()
	res := answerResult{Key: msg.Key, State: string(msg.State), Summary: msg.Summary, Commit: msg.Commit,
		Better: t.Better, Worse: t.Worse, Same: t.Same, Noisy: t.Noisy, Added: t.Added, Removed: t.Removed}
	result, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("--answer-out: %w", err)
	}
	for name, data := range map[string][]byte{
		answerJSONFile: body,
		answerMDFile:   []byte(msg.Full(github.Format) + "\n"),
		resultFile:     append(result, '\n'),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("--answer-out: %w", err)
		}
	}
	return nil
}

// artifactMeta is meta.json of a fork pull request's artifact, written by
// the action's compare step.
type artifactMeta struct {
	PR      int    `json:"pr"`
	HeadSHA string `json:"head_sha"`
	Key     string `json:"key"`
}

// workflowRunEvent is what post-artifact reads of a workflow_run event's
// payload.
type workflowRunEvent struct {
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

var (
	shaPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)
	keyPattern = regexp.MustCompile(`^gha-([0-9]+)(-[A-Za-z0-9._-]{1,64})?$`)
)

// postArtifactCmd posts the answer a fork pull request's run left as an
// artifact, from a workflow_run workflow that holds a write token. It runs
// nothing from the artifact: it reads two size-bounded JSON files, checks
// them against the event (the pull request and the commit the run was
// for) and posts the GitHub Markdown as a comment's text.
func postArtifactCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("post-artifact", stderr)
	dir := fs.String("dir", "", "the downloaded artifact: meta.json and answer.json, as the action's compare step wrote them")
	eventPath := fs.String("event", os.Getenv("GITHUB_EVENT_PATH"), "the workflow_run event's payload (default $GITHUB_EVENT_PATH)")
	configPath := fs.String("config", "", "config file whose venues.github settings apply (default: the environment's)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: perfbot post-artifact --dir DIR [--event FILE] [--config FILE]\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *dir == "" || *eventPath == "" {
		return usagef("give --dir and --event (or GITHUB_EVENT_PATH)")
	}
	ev, err := readWorkflowRun(*eventPath)
	if err != nil {
		return err
	}
	meta, msg, err := readArtifact(*dir)
	if err != nil {
		return err
	}
	if meta.HeadSHA != ev.WorkflowRun.HeadSHA {
		return fmt.Errorf("%s: head_sha %s is not the workflow run's head %s", filepath.Join(*dir, metaFile), meta.HeadSHA, ev.WorkflowRun.HeadSHA)
	}
	if msg.Commit != "" && msg.Commit != meta.HeadSHA {
		return fmt.Errorf("%s: the answer speaks for commit %s, not the workflow run's head %s", filepath.Join(*dir, answerJSONFile), msg.Commit, meta.HeadSHA)
	}
	var cfg *config.Config
	if *configPath != "" {
		if cfg, err = loadConfig(*configPath); err != nil {
			return err
		}
	}
	router := newRouter(cfg)
	where := ev.Repository.FullName + "#" + strconv.Itoa(meta.PR)
	if !runNamesPR(ev, meta.PR) {
		// GitHub leaves pull_requests empty for a fork's head branch:
		// ask GitHub which commit the pull request's head is.
		gh, err := router.GitHub()
		if err != nil {
			return fmt.Errorf("post-artifact: %w", err)
		}
		head, err := gh.HeadSHA(ctx, where)
		if err != nil {
			return fmt.Errorf("post-artifact: %w", err)
		}
		if head != meta.HeadSHA {
			return fmt.Errorf("post-artifact: pull request %s has head %s, not the workflow run's %s (pushed since, or the artifact names another pull request): not posted", where, head, meta.HeadSHA)
		}
	}
	t := review.Target{Venue: "github", Where: where}
	if err := postMessage(ctx, msg, []review.Target{t}, cfg, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "posted %s on %s\n", msg.Key, where)
	return nil
}

// runNamesPR reports whether the workflow run's event lists pull request n.
func runNamesPR(ev *workflowRunEvent, n int) bool {
	for _, pr := range ev.WorkflowRun.PullRequests {
		if pr.Number == n {
			return true
		}
	}
	return false
}

// readWorkflowRun reads and checks a workflow_run event's payload.
func readWorkflowRun(path string) (*workflowRunEvent, error) {
	data, err := readBounded(path, 8<<20)
	if err != nil {
		return nil, err
	}
	var ev workflowRunEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("%s: not a workflow_run event's JSON: %w", path, err)
	}
	switch {
	case ev.WorkflowRun == nil:
		return nil, fmt.Errorf("%s: no workflow_run: post-artifact runs on a workflow_run event", path)
	case ev.WorkflowRun.Event != "pull_request":
		return nil, fmt.Errorf("%s: workflow_run.event is %q, want pull_request", path, ev.WorkflowRun.Event)
	case !shaPattern.MatchString(ev.WorkflowRun.HeadSHA):
		return nil, fmt.Errorf("%s: workflow_run.head_sha %q: want 40 hex digits", path, ev.WorkflowRun.HeadSHA)
	case strings.Count(ev.Repository.FullName, "/") != 1:
		return nil, fmt.Errorf("%s: repository.full_name %q: want OWNER/REPO", path, ev.Repository.FullName)
	}
	return &ev, nil
}

// readArtifact reads and checks meta.json and answer.json of dir: regular
// files within their bounds, a key of the action's form for the pull
// request named, a known state, and of the answer only its GitHub Markdown,
// cut to GitHub's comment limit, and no attachments.
func readArtifact(dir string) (artifactMeta, answer.Answer, error) {
	var meta artifactMeta
	mpath := filepath.Join(dir, metaFile)
	data, err := readBounded(mpath, maxMetaJSON)
	if err != nil {
		return meta, answer.Answer{}, err
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return meta, answer.Answer{}, fmt.Errorf("%s: %w", mpath, err)
	}
	if meta.PR <= 0 {
		return meta, answer.Answer{}, fmt.Errorf("%s: pr %d: want a pull request number", mpath, meta.PR)
	}
	if !shaPattern.MatchString(meta.HeadSHA) {
		return meta, answer.Answer{}, fmt.Errorf("%s: head_sha %q: want 40 hex digits", mpath, meta.HeadSHA)
	}
	m := keyPattern.FindStringSubmatch(meta.Key)
	if m == nil || m[1] != strconv.Itoa(meta.PR) {
		return meta, answer.Answer{}, fmt.Errorf("%s: key %q: want gha-%d or gha-%d-SUFFIX", mpath, meta.Key, meta.PR, meta.PR)
	}
	apath := filepath.Join(dir, answerJSONFile)
	if data, err = readBounded(apath, maxAnswerJSON); err != nil {
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
	if !shaPattern.MatchString(got.Commit) && got.Commit != "" {
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
