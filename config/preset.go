package config

import (
	"sort"
	"strings"
)

// Preset is a built-in suite kind: how its tool is run, which parser reads
// it, which output the parser reads and which parameters are swept. A suite
// naming a preset gets each of these only where it leaves the field empty,
// so every part of a preset can be overridden in config.yaml; Vars are
// merged key by key.
type Preset struct {
	// Name is what a suite's preset field says.
	Name string
	// Doc says in a sentence what the preset runs.
	Doc     string
	Command string
	Parser  string
	Output  string
	Matrix  Matrix
	// Vars are default values of the command's placeholders.
	Vars map[string]string
}

// Presets returns the built-in presets. "go" is special: the runner builds
// each package's test binary once and runs it, so it has no command.
func Presets() []Preset {
	return []Preset{
		{
			Name:   "go",
			Doc:    "Go benchmarks: go test -c once per side, then the test binary with -test.bench each round",
			Parser: "gobench",
		},
		{
			Name: "jmh",
			Doc:  "JMH: java -jar target/benchmarks.jar (Maven) or the Gradle jmh task, results read from JMH's JSON",
			Command: "if [ -f {jar} ]; then java -jar {jar} -rf json -rff perfbot-jmh.json {jmh_args}; " +
				"else ./gradlew --quiet jmh {gradle_args} && cp build/results/jmh/results.json perfbot-jmh.json; fi",
			Parser: "jmh-json",
			Output: "file:perfbot-jmh.json",
			Vars:   map[string]string{"jar": "target/benchmarks.jar", "jmh_args": "", "gradle_args": ""},
		},
		{
			Name: "ycsb",
			Doc:  "YCSB (bin/ycsb) or go-ycsb: load then run each workload, throughput and latency percentiles",
			Command: "{ycsb} load {db} -P {workloads}/workload{workload} -p recordcount={recordcount} {props} {load_props} > load-{workload}.log 2>&1 && " +
				"{ycsb} run {db} -P {workloads}/workload{workload} -p recordcount={recordcount} -p operationcount={operationcount} {props}",
			Parser: "auto",
			Output: "combined",
			Matrix: Matrix{{Name: "workload", Values: []string{"a", "b", "c", "d", "e", "f"}}},
			Vars: map[string]string{"ycsb": "bin/ycsb", "db": "basic", "workloads": "workloads",
				"recordcount": "10000", "operationcount": "10000", "props": "", "load_props": ""},
		},
		{
			Name: "hbase-wal",
			Doc:  "HBase WALPerformanceEvaluation over a -threads sweep",
			Command: "bin/hbase org.apache.hadoop.hbase.wal.WALPerformanceEvaluation -threads {threads} " +
				"-iterations {iterations} -keySize {keysize} -valueSize {valuesize} {wal_args}",
			Parser: "hbase-wal",
			Output: "combined",
			Matrix: Matrix{{Name: "threads", Values: []string{"1", "3", "5", "10", "25", "50", "100", "200"}}},
			Vars:   map[string]string{"iterations": "100000", "keysize": "50", "valuesize": "100", "wal_args": ""},
		},
		{
			Name:    "hbase-pe",
			Doc:     "HBase PerformanceEvaluation (bin/hbase pe --nomapred) for one test and client count",
			Command: "bin/hbase pe --nomapred --rows={rows} {pe_args} {test} {clients}",
			Parser:  "hbase-pe",
			Output:  "combined",
			Matrix:  Matrix{{Name: "test", Values: []string{"randomRead"}}, {Name: "clients", Values: []string{"1"}}},
			Vars:    map[string]string{"rows": "100000", "pe_args": ""},
		},
		{
			Name: "pgbench",
			Doc:  "pgbench against a server the suite's setup starts on {port}, over a clients sweep; length is -T seconds or -t transactions per client",
			Command: "pgbench -n -h {host} -p {port} -U {user} -c {clients} -j {clients} {length} " +
				"{pgbench_args} {database}",
			Parser: "pgbench",
			Output: "stdout",
			Matrix: Matrix{{Name: "clients", Values: []string{"1", "2", "4", "8", "16"}}},
			Vars: map[string]string{"host": "127.0.0.1", "user": "postgres", "database": "postgres",
				"length": "-T 10", "pgbench_args": ""},
		},
		{
			Name:    "redis-benchmark",
			Doc:     "redis-benchmark against a server the suite's setup starts on {port}",
			Command: "redis-benchmark -h {host} -p {port} -t {tests} -n {requests} -c {connections} -d {datasize} --csv {redis_args}",
			Parser:  "redis-benchmark",
			Output:  "stdout",
			Vars: map[string]string{"host": "127.0.0.1", "tests": "set,get", "requests": "100000",
				"connections": "50", "datasize": "3", "redis_args": ""},
		},
		{
			Name:    "hyperfine",
			Doc:     "hyperfine timing a command line (vars.target), results read from its JSON export",
			Command: "hyperfine --style none --warmup {warmup} --runs {runs} --export-json perfbot-hyperfine.json {hyperfine_args} {target}",
			Parser:  "hyperfine",
			Output:  "file:perfbot-hyperfine.json",
			Vars:    map[string]string{"warmup": "1", "runs": "10", "hyperfine_args": ""},
		},
	}
}

// LookupPreset returns the named preset.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames returns the presets' names, sorted.
func PresetNames() []string {
	var out []string
	for _, p := range Presets() {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// ApplyPreset fills the fields the suite leaves empty from its preset. An
// unknown preset changes nothing (validation reports it).
func (s *Suite) ApplyPreset() {
	p, ok := LookupPreset(s.Preset)
	if !ok || p.Name == "go" {
		return
	}
	if strings.TrimSpace(s.Command) == "" {
		s.Command = p.Command
	}
	if s.Parser == "" {
		s.Parser = p.Parser
	}
	if s.Output == "" {
		s.Output = p.Output
	}
	if len(s.Matrix) == 0 {
		s.Matrix = append(Matrix(nil), p.Matrix...)
	}
	for k, v := range p.Vars {
		if _, ok := s.Vars[k]; !ok {
			if s.Vars == nil {
				s.Vars = map[string]string{}
			}
			s.Vars[k] = v
		}
	}
}
