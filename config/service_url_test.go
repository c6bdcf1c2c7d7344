package config

import (
	"strings"
	"testing"
)

func TestServiceURL(t *testing.T) {
	for _, tt := range []struct {
		value, want string
	}{
		{"https://perfbot.example.org", ""},
		{"http://127.0.0.1:8080/perfbot/", ""},
		{"perfbot.example.org", `c.yaml:2:8: service.url: expected a URL such as https://host/..., got "perfbot.example.org"`},
		{"ftp://perfbot.example.org", `c.yaml:2:8: service.url: expected a https or http URL, got scheme "ftp"`},
		{"https://perfbot.example.org/?x=1", `c.yaml:2:8: service.url: expected the pages' base address without user, query or fragment`},
		{"https://user:pw@perfbot.example.org", `c.yaml:2:8: service.url: expected the pages' base address without user, query or fragment`},
	} {
		cfg, err := Parse([]byte("service:\n  url: "+tt.value+"\n"), "c.yaml")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.value, err)
		case tt.want == "" && cfg.Service.URL != tt.value:
			t.Errorf("%s: read as %q", tt.value, cfg.Service.URL)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want %s", tt.value, err, tt.want)
		}
	}
}
