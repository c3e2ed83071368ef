-- 016: reliability and adaptive replication (issue 32). Each host's record of
-- each app version gains its errors (client errors and missed deadlines), a
-- moving error rate over every outcome and a moving average turnaround; an
-- app gains adaptive replication's settings (its target_nresults, upstream's
-- column, is the replication an untrusted host's job gets); a result records
-- why the validator judged it so (validate_why).
ALTER TABLE `host_app_version`
    ADD COLUMN n_errors BIGINT NOT NULL DEFAULT 0 AFTER n_invalid,
    ADD COLUMN error_rate DOUBLE NOT NULL DEFAULT 0 AFTER consecutive_valid,
    ADD COLUMN turnaround_avg DOUBLE NOT NULL DEFAULT 0 AFTER elapsed_avg;
ALTER TABLE `result`
    ADD COLUMN validate_why INT NOT NULL DEFAULT 0 AFTER validate_state;
ALTER TABLE `app`
    ADD COLUMN trust_after INT NOT NULL DEFAULT 10 AFTER target_nresults,
    ADD COLUMN spot_check DOUBLE NOT NULL DEFAULT 0.1 AFTER trust_after;
