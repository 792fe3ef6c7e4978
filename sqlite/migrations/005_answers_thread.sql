-- A chat adapter asks whether the bot answered someone in a thread (a
-- Slack thread reply without a mention continues the conversation only
-- then), for every reply in the bot's channels: by thread, then asker.
CREATE INDEX answers_thread_user ON answers (thread, user_id);
