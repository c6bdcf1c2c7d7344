package action_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The checks below are those of the published JSON schema of action
// metadata (SchemaStore's github-action.json, after GitHub's "Metadata
// syntax for GitHub Actions"): the top-level keys it allows and requires,
// inputs and outputs by id, and the composite runs' steps.
var (
	actionKeys    = []string{"name", "author", "description", "inputs", "outputs", "runs", "branding"}
	inputKeys     = []string{"description", "deprecationMessage", "required", "default"}
	outputKeys    = []string{"description", "value"}
	stepKeys      = []string{"run", "shell", "uses", "with", "name", "id", "if", "env", "continue-on-error", "working-directory"}
	shells        = []string{"bash", "pwsh", "python", "sh", "cmd", "powershell"}
	idPattern     = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9_-]*$`)
	brandingColor = []string{"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}
)

func TestActionMetadataFollowsTheSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(actionPath(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	for k := range doc {
		if !slices.Contains(actionKeys, k) {
			t.Errorf("action.yml: key %q is not in the action metadata schema", k)
		}
	}
	for _, k := range []string{"name", "description", "runs"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("action.yml: required key %q missing", k)
		}
	}
	for _, k := range []string{"name", "description", "author"} {
		if v, ok := doc[k]; ok {
			if s, isStr := v.(string); !isStr || s == "" {
				t.Errorf("action.yml: %s is %v, want a non-empty string", k, v)
			}
		}
	}
	if b, ok := doc["branding"].(map[string]any); ok {
		if c, ok := b["color"].(string); ok && !slices.Contains(brandingColor, c) {
			t.Errorf("branding.color %q is not one of %v", c, brandingColor)
		}
	}
	inputs, _ := doc["inputs"].(map[string]any)
	for _, want := range []string{"config", "suites", "instrument", "answer", "db", "go-version"} {
		if _, ok := inputs[want]; !ok {
			t.Errorf("input %s missing", want)
		}
	}
	for id, v := range inputs {
		in, ok := v.(map[string]any)
		if !idPattern.MatchString(id) || !ok {
			t.Errorf("input %q: want an id matching %s with a mapping", id, idPattern)
			continue
		}
		checkKeys(t, "inputs."+id, in, inputKeys, "description")
		if r, ok := in["required"]; ok {
			if _, isBool := r.(bool); !isBool {
				t.Errorf("inputs.%s.required %v: want a boolean", id, r)
			}
		}
		if d, ok := in["default"]; ok {
			if _, isStr := d.(string); !isStr {
				t.Errorf("inputs.%s.default %v: want a string", id, d)
			}
		}
	}
	if in, _ := inputs["instrument"].(map[string]any); in["default"] != "auto" {
		t.Errorf("inputs.instrument.default is %v, want auto", in["default"])
	}
	outputs, _ := doc["outputs"].(map[string]any)
	for _, want := range []string{"verdict", "better", "worse", "same", "noisy"} {
		if _, ok := outputs[want]; !ok {
			t.Errorf("output %s missing", want)
		}
	}
	runs, _ := doc["runs"].(map[string]any)
	if runs["using"] != "composite" {
		t.Fatalf("runs.using is %v, want composite", runs["using"])
	}
	for id, v := range outputs {
		out, ok := v.(map[string]any)
		if !idPattern.MatchString(id) || !ok {
			t.Errorf("output %q: want an id matching %s with a mapping", id, idPattern)
			continue
		}
		// A composite action's outputs need a value.
		checkKeys(t, "outputs."+id, out, outputKeys, "description", "value")
	}
	steps, ok := runs["steps"].([]any)
	if !ok || len(steps) == 0 {
		t.Fatalf("runs.steps: want a list of steps, got %v", runs["steps"])
	}
	scripts := map[string]bool{}
	for i, v := range steps {
		st, ok := v.(map[string]any)
		if !ok {
			t.Errorf("runs.steps[%d]: want a mapping", i)
			continue
		}
		where := "runs.steps[" + itoa(i) + "]"
		checkKeys(t, where, st, stepKeys)
		_, hasRun := st["run"]
		_, hasUses := st["uses"]
		if hasRun == hasUses {
			t.Errorf("%s: want exactly one of run and uses", where)
		}
		if hasRun {
			sh, _ := st["shell"].(string)
			if !slices.Contains(shells, sh) {
				t.Errorf("%s: a run step needs shell (one of %v), has %q", where, shells, sh)
			}
			run, _ := st["run"].(string)
			if m := regexp.MustCompile(`\$GITHUB_ACTION_PATH/(action/[a-z-]+\.sh)`).FindStringSubmatch(run); m != nil {
				scripts[m[1]] = true
				if _, err := os.Stat(filepath.Join(actionPath(t), m[1])); err != nil {
					t.Errorf("%s runs %s: %v", where, m[1], err)
				}
			} else {
				t.Errorf("%s: run %q is not one of the action's scripts", where, run)
			}
		}
		if u, ok := st["uses"].(string); ok && !strings.Contains(u, "@") {
			t.Errorf("%s: uses %q: want OWNER/REPO@REF", where, u)
		}
	}
	for _, s := range []string{"action/compare.sh", "action/post-artifact.sh"} {
		if !scripts[s] {
			t.Errorf("no step runs %s", s)
		}
	}
}

// checkKeys reports keys of m that allowed lacks and required keys m lacks.
func checkKeys(t *testing.T, where string, m map[string]any, allowed []string, required ...string) {
	t.Helper()
	for k := range m {
		if !slices.Contains(allowed, k) {
			t.Errorf("%s: key %q is not allowed (want one of %v)", where, k, allowed)
		}
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: required key %q missing", where, k)
		}
	}
}

// gitlabJobKeys are the job keywords of GitLab's CI/CD YAML syntax
// reference; gitlabGlobalKeys the top-level keywords besides jobs.
var (
	gitlabJobKeys = []string{"after_script", "allow_failure", "artifacts", "before_script", "cache", "coverage",
		"dast_configuration", "dependencies", "environment", "extends", "hooks", "identity", "id_tokens", "image",
		"inherit", "interruptible", "needs", "pages", "parallel", "release", "resource_group", "retry", "rules",
		"script", "secrets", "services", "stage", "tags", "timeout", "trigger", "variables", "when"}
	gitlabGlobalKeys  = []string{"default", "include", "stages", "variables", "workflow"}
	gitlabArtifactKey = []string{"paths", "exclude", "expire_in", "expose_as", "name", "public", "access", "reports", "untracked", "when"}
)

func TestGitLabTemplateIsValidYAMLWithDocumentedKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(actionPath(t), "ci", "gitlab", "perfbot.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("perfbot.gitlab-ci.yml: %v", err)
	}
	job, ok := doc["perfbot"].(map[string]any)
	if !ok {
		t.Fatalf("no job perfbot in %v", doc)
	}
	for k, v := range doc {
		if k == "perfbot" {
			continue
		}
		if !slices.Contains(gitlabGlobalKeys, k) {
			t.Errorf("top-level key %q is neither a global keyword nor the job", k)
		}
		if k == "variables" {
			for name, val := range v.(map[string]any) {
				if _, isStr := val.(string); !isStr {
					t.Errorf("variables.%s = %v: GitLab variables are strings", name, val)
				}
			}
		}
	}
	checkKeys(t, "perfbot", job, gitlabJobKeys, "script", "rules")
	rules, _ := job["rules"].([]any)
	found := false
	for _, r := range rules {
		if m, ok := r.(map[string]any); ok && strings.Contains(m["if"].(string), `$CI_PIPELINE_SOURCE == "merge_request_event"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("rules %v: want the job on merge request pipelines", rules)
	}
	if a, ok := job["artifacts"].(map[string]any); ok {
		checkKeys(t, "perfbot.artifacts", a, gitlabArtifactKey)
	}
	script, _ := job["script"].([]any)
	var text strings.Builder
	for _, s := range script {
		str, ok := s.(string)
		if !ok {
			t.Errorf("script entry %v: want a string", s)
		}
		text.WriteString(str)
	}
	for _, want := range []string{"CI_MERGE_REQUEST_IID", "CI_MERGE_REQUEST_DIFF_BASE_SHA", "CI_PROJECT_PATH", "--post \"gitlab:", "--key"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the job's script does not use %s", want)
		}
	}
	for name, v := range job["variables"].(map[string]any) {
		if _, isStr := v.(string); !isStr {
			t.Errorf("perfbot.variables.%s = %v: want a string", name, v)
		}
	}
}

// TestWorkflowExamplesParse reads the example workflows of action/examples
// and the ```yaml workflow blocks of docs/ci.md: YAML with a trigger, jobs
// with steps, and the permissions docs/ci.md says each holds.
func TestWorkflowExamplesParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(actionPath(t), "action", "examples", "*.yml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("examples %v: want three (%v)", files, err)
	}
	texts := map[string]string{}
	for _, f := range files {
		texts[filepath.Base(f)] = readFile(t, f)
	}
	doc := readFile(t, filepath.Join(actionPath(t), "docs", "ci.md"))
	for i, block := range strings.Split(doc, "```yaml workflow\n")[1:] {
		end := strings.Index(block, "\n```")
		if end < 0 {
			t.Fatalf("docs/ci.md: workflow block %d is not closed", i)
		}
		texts["docs/ci.md block "+itoa(i)] = block[:end+1]
	}
	for name, text := range texts {
		var wf map[string]any
		if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if wf["on"] == nil || wf["jobs"] == nil {
			t.Errorf("%s: want on: and jobs:", name)
		}
		on, _ := wf["on"].(map[string]any)
		perms, _ := wf["permissions"].(map[string]any)
		if _, ok := on["workflow_run"]; ok {
			if perms["pull-requests"] != "write" || perms["checks"] != "write" || perms["actions"] != "read" {
				t.Errorf("%s: the companion needs pull-requests: write, checks: write, actions: read; has %v", name, perms)
			}
			if strings.Contains(text, "actions/checkout") {
				t.Errorf("%s: the companion checks code out; it must run none of the pull request's", name)
			}
		}
	}
}
