package github

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// spillAfter is how much of a delivery is kept in memory before the rest
// goes to a temporary file: an unsigned body of GitHub's largest size never
// sits in memory.
const spillAfter = 1 << 20

// parseSignature reads an X-Hub-Signature-256 header ("sha256=" and 64 hex
// digits) into the MAC it names.
func parseSignature(sig string) ([]byte, error) {
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	if !ok {
		return nil, errors.New(`X-Hub-Signature-256 does not start with "sha256="`)
	}
	mac, err := hex.DecodeString(hexSig)
	if err != nil || len(mac) != sha256.Size {
		return nil, errors.New("X-Hub-Signature-256 is not 64 hex digits")
	}
	return mac, nil
}

// spooledBody is a request body read once: kept in memory up to spillAfter
// bytes, the rest in a temporary file (mode 0600) removed by Close.
type spooledBody struct {
	mem  bytes.Buffer
	file *os.File
	size int64
}

// spool copies r into a spooledBody while feeding the HMAC-SHA256 under
// secret, and reports whether the body's MAC equals want. At most limit
// bytes are read; a longer body is an error.
func spool(r io.Reader, secret, want []byte, limit int64) (*spooledBody, bool, error) {
	b := &spooledBody{}
	mac := hmac.New(sha256.New, secret)
	n, err := io.Copy(io.MultiWriter(mac, b), io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("body larger than %d bytes", limit)
	}
	if err != nil {
		b.Close()
		return nil, false, err
	}
	return b, hmac.Equal(want, mac.Sum(nil)), nil
}

// Write appends p, moving to the temporary file once memory holds
// spillAfter bytes.
func (b *spooledBody) Write(p []byte) (int, error) {
	b.size += int64(len(p))
	if b.file == nil && b.mem.Len()+len(p) <= spillAfter {
		return b.mem.Write(p)
	}
	if b.file == nil {
		f, err := os.CreateTemp("", "perfbot-webhook-*")
		if err != nil {
			return 0, fmt.Errorf("spool webhook body: %w", err)
		}
		b.file = f
	}
	return b.file.Write(p)
}

// Reader reads the whole body from its start.
func (b *spooledBody) Reader() (io.Reader, error) {
	if b.file == nil {
		return bytes.NewReader(b.mem.Bytes()), nil
	}
	if _, err := b.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("spooled webhook body: %w", err)
	}
	return io.MultiReader(bytes.NewReader(b.mem.Bytes()), b.file), nil
}

// Close removes the temporary file, if any.
func (b *spooledBody) Close() error {
	if b.file == nil {
		return nil
	}
	name := b.file.Name()
	b.file.Close()
	b.file = nil
	return os.Remove(name)
}
