-- What was shown with an answer besides its text (feedback.Detail): its
-- badge and the searches made, read when someone asks an expert about it
-- (any replica may take the press); and, for a person's reply saved as
-- the answer, who wrote it where.
ALTER TABLE answers ADD COLUMN detail jsonb NOT NULL DEFAULT '{}';
CREATE INDEX answers_human ON answers (created) WHERE detail ? 'human';
