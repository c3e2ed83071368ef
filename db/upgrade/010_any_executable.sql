-- 010: apps that run the submitter's own executable (through wseq_wrapper),
-- and the per-submitter right to submit to them. Both off by default.
ALTER TABLE `app` ADD COLUMN any_executable INT NOT NULL DEFAULT 0;
ALTER TABLE `user_submit` ADD COLUMN any_executable INT NOT NULL DEFAULT 0;
