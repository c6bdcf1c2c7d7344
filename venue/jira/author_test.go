package jira

import (
	"encoding/json"
	"testing"
)

// TestAttachmentAuthor reads who attached a file: the user name on Server
// and Data Center, the account ID on Cloud, whose author has no name.
func TestAttachmentAuthor(t *testing.T) {
	data := []byte(`{"key": "STORE-1", "fields": {"summary": "s", "updated": "2026-11-30T09:00:00.000+0000", "attachment": [
	  {"id": "10001", "filename": "a.patch", "created": "2026-11-30T09:00:00.000+0000", "content": "https://x/1",
	   "author": {"self": "https://x/rest/api/2/user?username=alice", "name": "alice", "key": "JIRAUSER10100", "displayName": "Alice"}},
	  {"id": "10002", "filename": "b.patch", "created": "2026-11-30T09:00:00.000+0000", "content": "https://x/2",
	   "author": {"self": "https://x/rest/api/3/user?accountId=5b10ac8d82e05b22cc7d4ef5", "accountId": "5b10ac8d82e05b22cc7d4ef5", "displayName": "Bob", "accountType": "atlassian"}},
	  {"id": "10003", "filename": "c.patch", "created": "2026-11-30T09:00:00.000+0000", "content": "https://x/3"}]}}`)
	var a apiIssue
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	is := a.issue()
	for i, want := range []string{"alice", "5b10ac8d82e05b22cc7d4ef5", ""} {
		if got := is.Attachments[i].Author; got != want {
			t.Errorf("attachment %d author %q, want %q", i, got, want)
		}
	}
}
