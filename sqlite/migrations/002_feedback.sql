-- answers: what the bot answered in chat, kept so that a 👍/👎 pressed
-- later (perhaps on another replica) is stored with its question, route
-- and sources.
CREATE TABLE answers (
	id       TEXT PRIMARY KEY,
	thread   TEXT NOT NULL DEFAULT '',
	user_id  TEXT NOT NULL DEFAULT '',
	question TEXT NOT NULL DEFAULT '',
	answer   TEXT NOT NULL DEFAULT '',
	route    TEXT NOT NULL DEFAULT '',
	sources  TEXT NOT NULL DEFAULT '[]',
	created  INTEGER NOT NULL
);

-- votes: one per person and answer; a second vote replaces the first.
CREATE TABLE votes (
	answer_id TEXT NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
	user_id   TEXT NOT NULL,
	vote      INTEGER NOT NULL CHECK (vote IN (-1, 1)),
	created   INTEGER NOT NULL,
	PRIMARY KEY (answer_id, user_id)
);
