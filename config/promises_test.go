package config

import (
	"strings"
	"testing"
)

// TestDocumentedChecks feeds each check the docs promise a config that
// must fail it, and one that must pass; no message may repeat a secret.
func TestDocumentedChecks(t *testing.T) {
	const goSuite = "suites:\n  wal: {preset: go, go: {packages: ./wal}"
	cases := []struct {
		name, yaml, want string // want "": accepted
	}{
		{"archive template", "digest: {mail_archive: \"https://lists.example.org/r/%s\"}", ""},
		{"archive escaped percent", "digest: {mail_archive: \"https://lists.example.org/r/%%40/%s\"}", ""},
		{"archive without %s", "digest: {mail_archive: \"https://lists.example.org/r/\"}", "digest.mail_archive: expected a URL template with one %s"},
		{"archive two %s", "digest: {mail_archive: \"https://x.org/%s/%s\"}", "digest.mail_archive: expected a URL template with one %s"},
		{"archive other verb", "digest: {mail_archive: \"https://x.org/%20/%s\"}", "digest.mail_archive: expected a URL template with one %s"},
		{"archive not a URL", "digest: {mail_archive: \"lists/%s\"}", "digest.mail_archive: expected an http or https URL template"},
		{"go variants", goSuite + ", variants: {a: {env: {X: \"1\"}}, b: {env: {X: \"2\"}}}}", ""},
		{"go one variant", goSuite + ", variants: {a: {env: {X: \"1\"}}}}", `suites.wal.variants: only "a" is given; a comparison needs at least two`},
		{"go ref and patch", goSuite + ", variants: {a: {}, b: {ref: v1, patch: p.diff}}}", "suites.wal.variants.b: give ref or patch, not both"},
		{"go top-level one variant", goSuite + "}\nvariants: {a: {env: {X: \"1\"}}}", `variants: only "a" is given`},
		{"env name", "venues: {github: {token_env: GITHUB_TOKEN}}", ""},
		{"env name long", "venues: {github: {token_env: PERFBOT_GITHUB_ENTERPRISE_TOKEN_2}}", ""},
		{"github token", "venues: {github: {token_env: ghp_R2d2C3poXwingTieFighter0123456789ab}}", "venues.github.token_env: looks like a secret"},
		{"gitlab token", "venues: {gitlab: {project: a/b, token_env: glpat-AbCdEf0123456789xyzw}}", "venues.gitlab.token_env: expected the name of an environment variable"},
		{"slack token", "venues: {mail: {password_env: xoxb-1234-5678-abcdefgh}}", "venues.mail.password_env: expected the name"},
		{"aws key", "venues: {jira: {token_env: AKIAIOSFODNN7EXAMPLE}}", "venues.jira.token_env: looks like a secret"},
		{"hex token", "venues: {reviewboard: {token_env: a94a8fe5ccb19ba61c4c0873d391e987982fbbd3}}", "venues.reviewboard.token_env: looks like a secret"},
		{"base64 token", "venues: {gerrit: {url: https://r.example.org, password_env: dGhpc0lzQVNlY3JldFBhc3N3b3JkMTIz}}", "venues.gerrit.password_env: looks like a secret"},
		{"track suite of none", "track: {branches: [{branch: main, suites: [wal]}]}\nproject: {repo: /srv/store}", `track.branches[0].suites[0]: no suite "wal": the file defines no suites`},
		{"track suite unknown", goSuite + "}\ntrack: {branches: [{branch: main, suites: [cache]}]}\nproject: {repo: /srv/store}", `no suite "cache" in suites (known: wal)`},
		{"track suite known", goSuite + "}\ntrack: {branches: [{branch: main, suites: [wal]}]}\nproject: {repo: /srv/store}", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "c.yaml")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if err != nil {
				for _, secret := range []string{"ghp_", "glpat-", "xoxb-", "AKIA", "a94a8fe5", "dGhpc0lz"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("the error repeats the secret: %v", err)
					}
				}
			}
		})
	}
}
