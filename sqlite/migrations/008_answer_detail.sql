-- What was shown with an answer besides its text (feedback.Detail, JSON):
-- its badge and the searches made, read when someone asks an expert about
-- it; and, for a person's reply saved as the answer, who wrote it where.
ALTER TABLE answers ADD COLUMN detail TEXT NOT NULL DEFAULT '{}';
