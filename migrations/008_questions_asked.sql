-- 008_questions_asked: a thread's questions are ordered by when the chat
-- platform says they were asked (Slack's ts, Discord's snowflake), not by
-- when a replica stored them. A replica frozen with a delivery in hand
-- leaves it to the platform's retry, which another replica stores after
-- the thread's next question: by seq that next question went first and
-- was answered without the one before it (issue 21).
--
-- asked is NULL for questions stored before this migration and for
-- platforms that give no time; they keep their place by created.
ALTER TABLE questions ADD COLUMN asked timestamptz;

DROP INDEX questions_open;
CREATE INDEX questions_open ON questions (thread, (coalesce(asked, created)), seq)
	WHERE state IN ('posting', 'queued', 'running');
