package compare

import "testing"

func TestParseMethod(t *testing.T) {
	for _, name := range []string{"perfbot", "benchstat"} {
		if m, err := ParseMethod(name); err != nil || string(m) != name {
			t.Errorf("%s: %q, %v", name, m, err)
		}
	}
	if _, err := ParseMethod("t-test"); err == nil || err.Error() != `method "t-test": want perfbot or benchstat` {
		t.Errorf("t-test: %v", err)
	}
}
