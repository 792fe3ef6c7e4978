-- A /ask answer is shared in its channel when its asker presses "Share in
-- channel", perhaps after a restart: the answer keeps the run it was
-- presented from (JSON, '' for none) and when it was shared (Unix ms,
-- NULL: not yet), so that two presses post once.
ALTER TABLE answers ADD COLUMN result TEXT NOT NULL DEFAULT '';
ALTER TABLE answers ADD COLUMN shared INTEGER;
