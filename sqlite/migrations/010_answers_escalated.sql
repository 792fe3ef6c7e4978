-- Issue 26. An answer's experts are asked once however often, and on
-- whichever replica, Ask an expert is pressed: when they were (Unix ms,
-- NULL: not yet), set as shared is (008). A person's reply saved as the
-- answer (Save as answer) is kept as an answer too, with where it came
-- from (feedback.Human as JSON; '' on the bot's answers). What the
-- escalation says of the bot's answer (its badge, its searches) is read
-- from the run kept in result (008).
ALTER TABLE answers ADD COLUMN escalated INTEGER;
ALTER TABLE answers ADD COLUMN human TEXT NOT NULL DEFAULT '';
