-- 005: the results of one batch (a sweep session's tickets, a remote
-- submission's jobs) through an index: /task of a sweep read and locked
-- every unsent result of the app's older sessions first (38 tasks/s with
-- 4,000 unsent tasks in another session, instead of hundreds).
ALTER TABLE `result` ADD KEY res_batch_state (batch, server_state);
