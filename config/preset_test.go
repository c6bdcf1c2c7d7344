package config

import (
	"strings"
	"testing"
)

func TestPresetsFillOnlyEmptyFields(t *testing.T) {
	yml := `suites:
  wal:
    preset: pgbench
    matrix: {clients: [1, 2]}
    vars: {length: "-t 10"}
    setup: "echo {port} {datadir}"
    variants:
      sync:  {vars: {sc: "on"}}
      async: {vars: {sc: "off"}, env: {PGOPTIONS: "-c jit=off"}}
  plain:
    preset: redis-benchmark
    command: "redis-benchmark -p {port} -q"
`
	c, err := Parse([]byte(yml), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wal := c.Suites[0]
	if !strings.HasPrefix(wal.Command, "pgbench -n") || wal.Parser != "pgbench" || wal.Output != "stdout" {
		t.Errorf("pgbench preset not applied: %+v", wal)
	}
	if len(wal.Matrix) != 1 || strings.Join(wal.Matrix[0].Values, ",") != "1,2" {
		t.Errorf("matrix %v: the config's own matrix must win", wal.Matrix)
	}
	if wal.Vars["length"] != "-t 10" || wal.Vars["host"] != "127.0.0.1" {
		t.Errorf("vars %v: want the config's length and the preset's host", wal.Vars)
	}
	if names := strings.Join(wal.Variants.Names(), ","); names != "sync,async" {
		t.Errorf("variants %s, want sync,async in file order", names)
	}
	async, _ := wal.Variants.Lookup("async")
	if s := strings.Join(async.Settings(), "; "); s != "env PGOPTIONS=-c jit=off; var sc=off" {
		t.Errorf("async settings %q", s)
	}
	plain := c.Suites[1]
	if plain.Command != "redis-benchmark -p {port} -q" || plain.Parser != "redis-benchmark" {
		t.Errorf("plain: %+v: the config's command must win, the parser come from the preset", plain)
	}
}

func TestEveryPresetValidates(t *testing.T) {
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			yml := "suites:\n  s:\n    preset: " + p.Name + "\n"
			if p.Name == "hyperfine" {
				yml += "    vars: {target: \"'sleep 0.1'\"}\n"
			}
			if _, err := Parse([]byte(yml), "config.yaml"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSuiteErrors(t *testing.T) {
	tests := []struct {
		name, yml, want string
	}{
		{"unknown preset", "suites:\n  s:\n    preset: nope\n", "unknown preset \"nope\" (known: go, hbase-pe, hbase-wal, hyperfine, jmh, pgbench, redis-benchmark, ycsb)"},
		{"hyperfine without target", "suites:\n  s:\n    preset: hyperfine\n", "uses {target}"},
		{"var of one variant only", "suites:\n  s:\n    command: \"run {mode}\"\n    variants:\n      a: {vars: {mode: x}}\n      b: {}\n", "uses {mode}"},
		{"one variant", "suites:\n  s:\n    command: run\n    variants:\n      a: {}\n", "only \"a\" is given"},
		{"ref and patch", "suites:\n  s:\n    command: run\n    variants:\n      a: {}\n      b: {ref: v1, patch: x.patch}\n", "ref or patch, not both"},
		{"file outside", "suites:\n  s:\n    command: run\n    variants:\n      a: {}\n      b: {files: {../x: y}}\n", "inside the variant's data directory"},
		{"unknown variant field", "suites:\n  s:\n    command: run\n    variants:\n      a: {}\n      b: {enviroment: {}}\n", "enviroment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yml), "config.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestVarsFromVariantsEverywhere(t *testing.T) {
	yml := "suites:\n  s:\n    command: \"run {mode}\"\n    variants:\n      a: {vars: {mode: x}}\n      b: {vars: {mode: y}}\n"
	if _, err := Parse([]byte(yml), "config.yaml"); err != nil {
		t.Fatal(err)
	}
}
