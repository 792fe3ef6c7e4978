-- Issue 26. An answer's experts are asked once however often, and on
-- whichever replica, Ask an expert is pressed: when they were (NULL: not
-- yet), set as shared is (010). A person's reply saved as the answer
-- (Save as answer) is kept as an answer too, with where it came from
-- (feedback.Human; NULL on the bot's answers). What the escalation says
-- of the bot's answer (its badge, its searches) is read from the run kept
-- in result (010).
ALTER TABLE answers ADD COLUMN escalated timestamptz, ADD COLUMN human jsonb;
CREATE INDEX answers_human ON answers (created) WHERE human IS NOT NULL;
