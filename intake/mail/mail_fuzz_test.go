package mail

import "testing"

func FuzzMail(f *testing.F) {
	f.Add([]byte("Message-Id: <a@b>\nSubject: [PATCH v2 1/2] x\nIn-Reply-To: <c@d>\nReferences: <c@d>\n\nbody\n"))
	f.Add([]byte("Message-Id: <c@d>\nSubject: [PATCH v2 0/2] cover\n\n"))
	f.Add([]byte("Subject: =?UTF-8?B?W1BBVENIXSB4?=\nMessage-Id: x\n\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseMessage(raw, "fuzz")
		if err != nil {
			return
		}
		for _, s := range Assemble([]*Message{m, m}) {
			if len(s.Patches) == 0 || s.Patches[0] == nil {
				t.Fatalf("series without patches from %q", raw)
			}
			_ = s.Mbox()
		}
	})
}
