package store

// migrations are applied in order; never edit one that has shipped, add a
// new one.
var migrations = []migration{
	{1, "history", `
CREATE TABLE runs (
	id {{ID}},
	job_key TEXT NOT NULL,
	job_id BIGINT,
	venue TEXT NOT NULL DEFAULT '',
	target TEXT NOT NULL DEFAULT '',
	suites TEXT NOT NULL DEFAULT '',
	base_ref TEXT NOT NULL DEFAULT '',
	base_commit TEXT NOT NULL DEFAULT '',
	candidate_ref TEXT NOT NULL DEFAULT '',
	candidate_commit TEXT NOT NULL DEFAULT '',
	patch TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL,
	error TEXT NOT NULL DEFAULT '',
	attempt INTEGER NOT NULL DEFAULT 0,
	worker TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	started_at TEXT,
	finished_at TEXT,
	heartbeat_at TEXT,
	host_json TEXT NOT NULL DEFAULT '{}',
	provenance_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_job_key ON runs (job_key);
CREATE UNIQUE INDEX runs_job_id ON runs (job_id);
CREATE INDEX runs_finished ON runs (finished_at);
CREATE TABLE results (
	id {{ID}},
	run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	variant TEXT NOT NULL,
	benchmark TEXT NOT NULL,
	grp TEXT NOT NULL DEFAULT '',
	params_json TEXT NOT NULL DEFAULT '{}',
	unit TEXT NOT NULL,
	metric TEXT NOT NULL DEFAULT '',
	better TEXT NOT NULL,
	samples_json TEXT,
	summary_json TEXT,
	centre {{REAL}}
);
CREATE INDEX results_run ON results (run_id);
CREATE INDEX results_benchmark ON results (benchmark);
CREATE TABLE comparisons (
	run_id BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	comparison_json TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE TABLE verdicts (
	id {{ID}},
	run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	benchmark TEXT NOT NULL,
	grp TEXT NOT NULL DEFAULT '',
	params_json TEXT NOT NULL DEFAULT '{}',
	unit TEXT NOT NULL,
	metric TEXT NOT NULL DEFAULT '',
	variant TEXT NOT NULL,
	base_centre {{REAL}},
	centre {{REAL}},
	delta_pct {{REAL}},
	p {{REAL}},
	verdict TEXT NOT NULL DEFAULT ''
);
CREATE INDEX verdicts_run ON verdicts (run_id);
CREATE INDEX verdicts_benchmark ON verdicts (benchmark);
CREATE TABLE posts (
	venue TEXT NOT NULL,
	target TEXT NOT NULL,
	job_key TEXT NOT NULL,
	link TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL DEFAULT '',
	posts INTEGER NOT NULL DEFAULT 0,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (venue, target, job_key)
);
CREATE TABLE tested (
	venue TEXT NOT NULL,
	item TEXT NOT NULL,
	revision TEXT NOT NULL,
	job_key TEXT NOT NULL DEFAULT '',
	tested_at TEXT NOT NULL,
	PRIMARY KEY (venue, item, revision)
);
CREATE TABLE deliveries (
	id TEXT PRIMARY KEY,
	received_at TEXT NOT NULL
)`},
	{2, "schedules", `
CREATE TABLE schedule_runs (
	name TEXT PRIMARY KEY,
	last_at TEXT NOT NULL
)`},
	{3, "noise", `
CREATE TABLE noise (
	id {{ID}},
	host TEXT NOT NULL,
	grp TEXT NOT NULL DEFAULT '',
	benchmark TEXT NOT NULL,
	params_json TEXT NOT NULL DEFAULT '{}',
	metric TEXT NOT NULL DEFAULT '',
	unit TEXT NOT NULL,
	delta_pct {{REAL}} NOT NULL,
	measured_at TEXT NOT NULL
);
CREATE INDEX noise_host ON noise (host, benchmark)`},
	// A history joins each result to its verdict by run and benchmark:
	// by benchmark alone, that join read every run's verdict of the
	// benchmark for each result, growing with the square of the runs.
	{4, "verdicts by run and benchmark", `
CREATE INDEX verdicts_run_benchmark ON verdicts (run_id, benchmark)`},
	{5, "artifacts and series", `
CREATE TABLE artifacts (
	run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	content_type TEXT NOT NULL,
	data {{BLOB}} NOT NULL,
	PRIMARY KEY (run_id, name)
);
CREATE INDEX results_series ON results (benchmark, grp, params_json, unit, metric, run_id);
CREATE INDEX verdicts_changed ON verdicts (verdict, run_id);
CREATE TABLE series (
	benchmark TEXT NOT NULL,
	grp TEXT NOT NULL DEFAULT '',
	params_json TEXT NOT NULL DEFAULT '{}',
	unit TEXT NOT NULL,
	metric TEXT NOT NULL DEFAULT '',
	search TEXT NOT NULL,
	PRIMARY KEY (benchmark, grp, params_json, unit, metric)
);
INSERT INTO series (benchmark, grp, params_json, unit, metric, search)
	SELECT DISTINCT benchmark, grp, params_json, unit, metric,
		LOWER(benchmark || ' ' || grp || ' ' || params_json || ' ' || unit || ' ' || metric) FROM results`},
	{6, "outbox", `
CREATE TABLE outbox (
	job_key TEXT NOT NULL,
	target TEXT NOT NULL,
	version BIGINT NOT NULL DEFAULT 1,
	state TEXT NOT NULL DEFAULT '',
	final INTEGER NOT NULL DEFAULT 0,
	message_json TEXT NOT NULL,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL,
	since TEXT NOT NULL,
	next_at TEXT NOT NULL,
	edit_after TEXT NOT NULL DEFAULT '',
	claimed_by TEXT NOT NULL DEFAULT '',
	claimed_until TEXT NOT NULL DEFAULT '',
	last_error TEXT NOT NULL DEFAULT '',
	link TEXT NOT NULL DEFAULT '',
	delivered_version BIGINT NOT NULL DEFAULT 0,
	delivered_at TEXT NOT NULL DEFAULT '',
	updated_at TEXT NOT NULL,
	PRIMARY KEY (job_key, target)
);
CREATE INDEX outbox_due ON outbox (status, next_at);
ALTER TABLE runs ADD COLUMN progress TEXT NOT NULL DEFAULT ''`},
	{7, "change_points", `
CREATE TABLE change_points (
	id {{ID}},
	track TEXT NOT NULL,
	benchmark TEXT NOT NULL,
	grp TEXT NOT NULL DEFAULT '',
	params_json TEXT NOT NULL DEFAULT '{}',
	unit TEXT NOT NULL,
	metric TEXT NOT NULL DEFAULT '',
	commit_before TEXT NOT NULL,
	commit_after TEXT NOT NULL,
	run_id BIGINT REFERENCES runs (id) ON DELETE SET NULL,
	n_before INTEGER NOT NULL,
	n_after INTEGER NOT NULL,
	before_centre {{REAL}} NOT NULL,
	before_lo {{REAL}} NOT NULL,
	before_hi {{REAL}} NOT NULL,
	after_centre {{REAL}} NOT NULL,
	after_lo {{REAL}} NOT NULL,
	after_hi {{REAL}} NOT NULL,
	delta_pct {{REAL}} NOT NULL,
	p {{REAL}} NOT NULL,
	min_change_pct {{REAL}} NOT NULL,
	found_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	posted_at TEXT
);
CREATE UNIQUE INDEX change_points_key ON change_points (track, benchmark, grp, params_json, unit, metric, commit_after);
CREATE INDEX change_points_found ON change_points (found_at);
CREATE INDEX runs_venue_target ON runs (venue, target)`},
	{8, "series run counts and page indexes", `
ALTER TABLE series ADD COLUMN runs BIGINT NOT NULL DEFAULT 0;
UPDATE series SET runs = (SELECT COUNT(DISTINCT r.run_id) FROM results r WHERE r.benchmark = series.benchmark
	AND r.grp = series.grp AND r.params_json = series.params_json AND r.unit = series.unit AND r.metric = series.metric);
CREATE INDEX change_points_series ON change_points (benchmark, grp, params_json, unit, metric)`},
	// A request's verdicts followed on a tracked branch once its patch
	// landed: which commit landed it, how that was learnt, and the lines
	// the answer was edited with.
	{9, "follow-ups", `
CREATE TABLE followups (
	job_key TEXT PRIMARY KEY,
	run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	venue TEXT NOT NULL,
	target TEXT NOT NULL,
	patch_id TEXT NOT NULL DEFAULT '',
	landed_commit TEXT NOT NULL DEFAULT '',
	landed_how TEXT NOT NULL DEFAULT '',
	track TEXT NOT NULL DEFAULT '',
	state TEXT NOT NULL,
	lines TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX followups_target ON followups (venue, target);
CREATE INDEX followups_state ON followups (state)`},
	// Reviewers' marks of verdicts as false alarms: each raises its
	// benchmark row's threshold on the host that ran it.
	{10, "false alarms", `
CREATE TABLE false_alarms (
	id {{ID}},
	run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	host TEXT NOT NULL,
	benchmark TEXT NOT NULL,
	grp TEXT NOT NULL DEFAULT '',
	params_json TEXT NOT NULL DEFAULT '{}',
	metric TEXT NOT NULL DEFAULT '',
	unit TEXT NOT NULL,
	variant TEXT NOT NULL DEFAULT '',
	verdict TEXT NOT NULL DEFAULT '',
	delta_pct {{REAL}} NOT NULL,
	marked_by TEXT NOT NULL,
	venue TEXT NOT NULL DEFAULT '',
	reason TEXT NOT NULL DEFAULT '',
	marked_at TEXT NOT NULL
);
CREATE INDEX false_alarms_run ON false_alarms (run_id);
CREATE INDEX false_alarms_host ON false_alarms (host, benchmark)`},
	// Which path found a change point: the commit's own run or the
	// history search (all earlier ones).
	{11, "change point paths", `
ALTER TABLE change_points ADD COLUMN found_by TEXT NOT NULL DEFAULT 'history'`},
	// A request's title (pull request title, mail subject, JIRA summary,
	// ...), as its intake read it; empty for runs from before.
	{12, "run titles", `
ALTER TABLE runs ADD COLUMN title TEXT NOT NULL DEFAULT ''`},
}
