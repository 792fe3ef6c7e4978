-- 006_questions: questions taken from chat, kept until answered, and the
-- askers' rate limits and the daily token budget, shared by every replica
-- (package questions; postgres/questions.go, postgres/limits.go).

-- questions: one row per accepted question. seq orders a thread's
-- questions as they came; state is posting (its placeholder is being
-- posted), queued, running (owner holds it until lease_until), done or
-- failed. question and address are the bot's and the adapter's own
-- encodings.
CREATE TABLE questions (
	id          text        PRIMARY KEY,
	seq         bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
	thread      text        NOT NULL,
	platform    text        NOT NULL,
	question    jsonb       NOT NULL,
	address     jsonb       NOT NULL,
	state       text        NOT NULL DEFAULT 'posting'
		CHECK (state IN ('posting', 'queued', 'running', 'done', 'failed')),
	placed      boolean     NOT NULL DEFAULT false,
	owner       text        NOT NULL DEFAULT '',
	lease_until timestamptz,
	attempts    integer     NOT NULL DEFAULT 0,
	created     timestamptz NOT NULL DEFAULT now(),
	updated     timestamptz NOT NULL DEFAULT now()
);

-- The unfinished questions, by thread in order: what Claim reads.
CREATE INDEX questions_open ON questions (thread, seq) WHERE state IN ('posting', 'queued', 'running');
-- The finished ones, by age: what retention prunes.
CREATE INDEX questions_finished ON questions (updated) WHERE state IN ('done', 'failed');

-- rate_buckets: one token bucket per asker or channel, kept as the moment
-- it is full again (as limits.Askers keeps it in memory).
CREATE TABLE rate_buckets (
	key     text        PRIMARY KEY,
	full_at timestamptz NOT NULL
);

-- token_budget: the model tokens each workspace used on a UTC day.
CREATE TABLE token_budget (
	workspace text   NOT NULL,
	day       date   NOT NULL,
	used      bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (workspace, day)
);
