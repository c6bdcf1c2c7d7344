// Package wal is a small write-ahead log used by perfbot's quickstart: each
// record is framed with its length and a CRC-32 checksum and appended to a
// segment file; Replay reads the records back and verifies them.
package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Log appends records to one segment file.
type Log struct {
	f *os.File
	n int64
}

// Open opens or creates the segment at path for appending.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Log{f: f}, nil
}

// Append writes one record: a 4-byte length, a 4-byte checksum, the data.
func (l *Log) Append(data []byte) error {
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:4], uint32(len(data)))
	binary.LittleEndian.PutUint32(hdr[4:8], checksum(data))
	if _, err := l.f.Write(hdr[:]); err != nil {
		return err
	}
	if _, err := l.f.Write(data); err != nil {
		return err
	}
	l.n++
	return nil
}

// Flush makes appended records visible to readers of the file.
func (l *Log) Flush() error { return nil }

// Close flushes and closes the segment.
func (l *Log) Close() error {
	if err := l.Flush(); err != nil {
		return err
	}
	return l.f.Close()
}

// Len is the number of records appended since Open.
func (l *Log) Len() int64 { return l.n }

// ErrCorrupt is a record whose checksum does not match.
var ErrCorrupt = errors.New("wal: corrupt record")

// Replay reads every record of the segment at path and calls fn with each.
func Replay(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [8]byte
	for i := 0; ; i++ {
		if _, err := io.ReadFull(f, hdr[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("record %d: %w", i, err)
		}
		data := make([]byte, binary.LittleEndian.Uint32(hdr[0:4]))
		if _, err := io.ReadFull(f, data); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if checksum(data) != binary.LittleEndian.Uint32(hdr[4:8]) {
			return fmt.Errorf("record %d: %w", i, ErrCorrupt)
		}
		if err := fn(data); err != nil {
			return err
		}
	}
}

var table = crc32.MakeTable(crc32.Castagnoli)

func checksum(data []byte) uint32 { return crc32.Checksum(data, table) }
