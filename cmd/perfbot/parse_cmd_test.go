package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCmd(t *testing.T) {
	dir := t.TempDir()
	jmh := filepath.Join(dir, "jmh.txt")
	os.WriteFile(jmh, []byte("Benchmark          (numTasks)   Mode  Cnt    Score    Error  Units\n"+
		"Store.getJobKeys        10000  thrpt    5  528,857 ± 278,142  ops/ms\n"+
		"Store.getJobKeys:·gc.alloc.rate.norm  10000  thrpt  5  ≈ 10⁻⁵  B/op\n"), 0o644)
	pg := filepath.Join(dir, "pg.txt")
	os.WriteFile(pg, []byte("transaction type: <builtin: TPC-B (sort of)>\nscaling factor: 1\nnumber of clients: 4\nnumber of threads: 2\nlatency average = 2.860 ms\ntps = 108.832630 (excluding connections establishing)\n"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("[\n  {\n    \"benchmark\": \"x\",\n"), 0o644)

	tests := []struct {
		name      string
		args      []string
		wantLines []string // substrings of each stdout line, in order
		wantErr   string
		wantWarn  string
	}{
		{
			name: "jmh auto",
			args: []string{jmh},
			wantLines: []string{
				`{"benchmark":"Store.getJobKeys","params":{"numTasks":"10000","mode":"thrpt"},"unit":"ops/ms","better":"higher","summary":{"mean":528.857,"error":278.142,"confidence":0.999,"n":5},"source":"` + jmh + `:2"}`,
				`{"benchmark":"Store.getJobKeys","params":{"numTasks":"10000","mode":"thrpt"},"metric":"gc.alloc.rate.norm","unit":"B/op","better":"lower","summary":{"mean":0.00001,"error":0,"confidence":0,"n":5},"source":"` + jmh + `:3"}`,
			},
			wantWarn: "printed only approximately",
		},
		{
			name: "pgbench forced format and two files",
			args: []string{"--format", "pgbench", pg, pg},
			wantLines: []string{
				`"metric":"AverageLatency","unit":"ms"`,
				`"benchmark":"TPC-B (sort of)","params":{"scale":"1","clients":"4","threads":"2"},"unit":"tps","better":"higher"`,
				`"metric":"AverageLatency"`,
				`"unit":"tps"`,
			},
		},
		{name: "truncated", args: []string{"--format", "jmh-json", bad}, wantErr: "bad.json:2: JMH JSON record is truncated"},
		{name: "unknown format", args: []string{"--format", "nope", pg}, wantErr: `unknown format "nope"`},
		{name: "no files", args: nil, wantErr: "no input files"},
		{name: "missing file", args: []string{filepath.Join(dir, "absent")}, wantErr: "absent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := parseCmd(context.Background(), tt.args, &stdout, &stderr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseCmd: %v (stderr %s)", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(lines) != len(tt.wantLines) {
				t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(tt.wantLines), stdout.String())
			}
			for i, want := range tt.wantLines {
				if !strings.Contains(lines[i], want) {
					t.Errorf("line %d = %s\nwant it to contain %s", i+1, lines[i], want)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
					t.Errorf("line %d is not JSON: %v", i+1, err)
				}
			}
			if tt.wantWarn != "" && !strings.Contains(stderr.String(), tt.wantWarn) {
				t.Errorf("stderr = %q, want a warning containing %q", stderr.String(), tt.wantWarn)
			}
		})
	}
}

func TestParseCmdUsageError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := parseCmd(context.Background(), nil, &stdout, &stderr)
	var ue *usageError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a usage error", err)
	}
}

func TestParseCmdStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old }()
	go func() {
		w.WriteString("SET: 104166.66 requests per second\nGET: 98000.00 requests per second\n")
		w.Close()
	}()
	var stdout, stderr bytes.Buffer
	if err := parseCmd(context.Background(), []string{"-"}, &stdout, &stderr); err != nil {
		t.Fatalf("parseCmd: %v", err)
	}
	want := `{"benchmark":"SET","params":{},"unit":"QPS","better":"higher","summary":{"mean":104166.66,"error":0,"confidence":0,"n":1},"source":"<stdin>:1"}` + "\n" +
		`{"benchmark":"GET","params":{},"unit":"QPS","better":"higher","summary":{"mean":98000,"error":0,"confidence":0,"n":1},"source":"<stdin>:2"}` + "\n"
	if stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
}

func TestParseCmdAllFixtures(t *testing.T) {
	// Every real fixture parses through the command, auto-detected, into
	// JSON lines (or a clear error for the files that hold no results).
	files, err := filepath.Glob("../../parse/testdata/*")
	if err != nil || len(files) < 60 {
		t.Fatalf("fixtures: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		if strings.Contains(f, "PROVENANCE") || strings.HasSuffix(f, "golden") || strings.HasSuffix(f, "fuzz") {
			continue
		}
		var stdout, stderr bytes.Buffer
		err := parseCmd(context.Background(), []string{f}, &stdout, &stderr)
		if err != nil && !strings.Contains(err.Error(), filepath.Base(f)) {
			t.Errorf("%s: error %v does not name the file", f, err)
		}
		for i, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if line == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("%s line %d: %v", f, i+1, err)
				continue
			}
			if m["benchmark"] == "" || m["unit"] == "" || (m["samples"] == nil) == (m["summary"] == nil) {
				t.Errorf("%s line %d: incomplete result %s", f, i+1, line)
			}
		}
	}
}
