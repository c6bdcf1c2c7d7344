package sandbox

import (
	"fmt"
	"strings"

	"github.com/perfbot/perfbot/redact"
)

// BaseEnv names the host variables every command may get.
var BaseEnv = []string{"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM"}

// GoEnv names the host variables a Go build or benchmark may get.
var GoEnv = []string{"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY",
	"GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOAMD64", "GOARM64", "GOMAXPROCS", "GOGC", "GODEBUG", "CGO_ENABLED"}

// secretWords are parts of variable names that hold credentials; such a
// variable can never be allow-listed.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY", "API_KEY", "PRIVATE_KEY", "AUTH"}

// Environ builds a command's environment: the host variables (KEY=VALUE,
// as os.Environ gives them) whose names are in allow, then set (KEY=VALUE)
// on top. HOME and TMPDIR are /tmp unless set says otherwise. Allowing a
// name that looks like a credential (…TOKEN, …SECRET, …PASSWORD) is an
// error: secrets never enter a benchmark's environment.
func Environ(host, allow, set []string) ([]string, error) {
	ok := map[string]bool{}
	for _, name := range allow {
		if w := secretWord(name); w != "" {
			return nil, fmt.Errorf("sandbox: variable %s looks like a credential (%s) and cannot be passed to a command", name, w)
		}
		ok[name] = true
	}
	vals := map[string]string{"HOME": "/tmp", "TMPDIR": "/tmp"}
	order := []string{"HOME", "TMPDIR"}
	put := func(k, v string) {
		if _, seen := vals[k]; !seen {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, kv := range host {
		if k, v, found := strings.Cut(kv, "="); found && ok[k] {
			put(k, v)
		}
	}
	for _, kv := range set {
		k, v, found := strings.Cut(kv, "=")
		if !found || k == "" {
			return nil, fmt.Errorf("sandbox: environment setting %q is not KEY=VALUE", kv)
		}
		put(k, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vals[k])
	}
	return out, nil
}

// LooksSecret reports whether a variable's name says it holds a
// credential (…TOKEN, …SECRET, …PASSWORD, …PRIVATE_KEY, …AUTH).
func LooksSecret(name string) bool { return secretWord(name) != "" }

func secretWord(name string) string {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return w
		}
	}
	return ""
}

// CheckSecrets returns an error when a secret known to r appears, in any
// of its forms, in spec's environment, arguments or directories. The error
// names the place, never the value.
func CheckSecrets(spec Spec, r *redact.Redactor) error {
	if r == nil {
		return nil
	}
	for _, kv := range spec.Env {
		if r.Contains(kv) {
			k, _, _ := strings.Cut(kv, "=")
			return fmt.Errorf("sandbox: refusing to run %s: environment variable %s holds a secret", argv0(spec), k)
		}
	}
	for i, a := range spec.Argv {
		if r.Contains(a) {
			return fmt.Errorf("sandbox: refusing to run %s: argument %d holds a secret", argv0(spec), i)
		}
	}
	for _, p := range append(append([]string{spec.Dir}, spec.Writable...), spec.ReadOnly...) {
		if r.Contains(p) {
			return fmt.Errorf("sandbox: refusing to run %s: a path holds a secret", argv0(spec))
		}
	}
	return nil
}

func argv0(spec Spec) string {
	if len(spec.Argv) == 0 {
		return "an empty command"
	}
	return spec.Argv[0]
}
