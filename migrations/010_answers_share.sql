-- A /ask answer is shared in its channel when its asker presses "Share in
-- channel", perhaps after a restart or on another replica: the answer
-- keeps the run it was presented from (NULL: not kept) and when it was
-- shared (NULL: not yet), so that two presses post once.
ALTER TABLE answers ADD COLUMN result jsonb, ADD COLUMN shared timestamptz;
