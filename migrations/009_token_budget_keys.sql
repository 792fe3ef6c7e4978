-- 009_token_budget_keys: the daily token budget counts each person too,
-- not only each workspace, in the same table: a row's key is "w:" and the
-- workspace, or "u:" and the person (postgres.Limits). The rows counted
-- so far are the workspaces'.
ALTER TABLE token_budget RENAME COLUMN workspace TO key;
UPDATE token_budget SET key = 'w:' || key;
