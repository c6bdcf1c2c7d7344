package github

import "testing"

func TestAPIBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "https://api.github.com/"},
		{"https://api.github.com", "https://api.github.com/"},
		{"https://api.github.com/", "https://api.github.com/"},
		{"https://github.com/", "https://api.github.com/"},
		{"https://ghe.example.com", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3/"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/"},
		{"http://127.0.0.1:8080/api/v3/", "http://127.0.0.1:8080/api/v3/"},
	}
	for _, tt := range tests {
		got, err := APIBaseURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("APIBaseURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"ghe.example.com", "ftp://ghe.example.com/", "https://"} {
		if got, err := APIBaseURL(bad); err == nil {
			t.Errorf("APIBaseURL(%q) = %q, want an error", bad, got)
		}
	}
}
