-- answers: what the bot answered in chat, so that a 👍/👎 pressed later, on
-- any replica, is stored with its question, route and sources.
CREATE TABLE answers (
	id       text PRIMARY KEY,
	thread   text        NOT NULL DEFAULT '',
	user_id  text        NOT NULL DEFAULT '',
	question text        NOT NULL DEFAULT '',
	answer   text        NOT NULL DEFAULT '',
	route    text        NOT NULL DEFAULT '',
	sources  jsonb       NOT NULL DEFAULT '[]',
	created  timestamptz NOT NULL DEFAULT now()
);

-- A chat vote refers to its answer; one vote per person and answer, a
-- second replacing the first.
ALTER TABLE feedback ADD COLUMN answer_id text REFERENCES answers(id) ON DELETE SET NULL;
CREATE UNIQUE INDEX feedback_answer_user ON feedback (answer_id, user_id) WHERE answer_id IS NOT NULL;
