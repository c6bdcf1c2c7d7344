package jobspec_test

import (
	"encoding/json"
	"testing"

	"github.com/perfbot/perfbot/job/jobspec"
)

// TestTargetsJSON: a spec stored by a version whose targets were strings
// (River job arguments) decodes, and encodes back to the same text.
func TestTargetsJSON(t *testing.T) {
	old := `{"key":"k","targets":["github:acme/store#3","github:#4","gitlab:acme/db/store!12","jira:STORE-1","reviewboard:42","gerrit:1234/2","mail:dev@lists.example.org?cc=author%40example.org"],"source":""}`
	var s jobspec.Spec
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Targets) != 7 || s.Targets[0].Repo != "acme/store" || s.Targets[0].Number != 3 || s.Targets[5].PatchSet != 2 || s.Targets[6].Cc[0].Address != "author@example.org" {
		t.Errorf("targets %+v", s.Targets)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != old {
		t.Errorf("encoded %s\nwant    %s", data, old)
	}
	if err := json.Unmarshal([]byte(`{"key":"k","targets":["github:acme"]}`), &s); err == nil {
		t.Error("a malformed target decoded")
	}
}
