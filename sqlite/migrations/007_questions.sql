-- 007_questions: the questions the bot took from chat, kept until they are
-- answered (package questions), so that a restart of `bot serve` on the
-- embedded store loses none: a question stored and not finished is
-- claimed again when its lease runs out. Times are Unix microseconds.
-- question_keys are the chat deliveries taken, so that a platform's retry
-- is never answered twice.
CREATE TABLE questions (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT, -- the order of storing, which breaks ties of asked
	id          TEXT NOT NULL UNIQUE,
	thread      TEXT NOT NULL,
	platform    TEXT NOT NULL,
	question    BLOB NOT NULL,
	address     BLOB NOT NULL,
	asked       INTEGER,                           -- NULL: unknown, placed by created
	created     INTEGER NOT NULL,
	updated     INTEGER NOT NULL,
	state       TEXT NOT NULL DEFAULT 'posting',   -- posting, queued, running, done
	placed      INTEGER NOT NULL DEFAULT 0,
	owner       TEXT NOT NULL DEFAULT '',
	lease_until INTEGER,
	attempts    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX questions_open ON questions (thread, coalesce(asked, created), seq)
	WHERE state IN ('posting', 'queued', 'running');
CREATE INDEX questions_done ON questions (updated) WHERE state = 'done';

CREATE TABLE question_keys (
	key      TEXT PRIMARY KEY,
	received INTEGER NOT NULL
);
CREATE INDEX question_keys_received ON question_keys (received);
