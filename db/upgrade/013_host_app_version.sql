-- 013: the measured speed of each app version on each host (upstream's
-- host_app_version): jobs, the moving average of their FLOPS and elapsed
-- time, and the validator's verdicts. The table starts empty; the
-- scheduler fills it as hosts report results, and until a host has rows
-- its versions are chosen by projected speed as before.
CREATE TABLE IF NOT EXISTS `host_app_version` (
    host_id             BIGINT NOT NULL,
    app_version_id      BIGINT NOT NULL,
    n_jobs              BIGINT NOT NULL DEFAULT 0,
    n_valid             BIGINT NOT NULL DEFAULT 0,
    n_invalid           BIGINT NOT NULL DEFAULT 0,
    consecutive_valid   BIGINT NOT NULL DEFAULT 0,
    flops_avg           DOUBLE NOT NULL DEFAULT 0,
    elapsed_avg         DOUBLE NOT NULL DEFAULT 0,
    last_update         BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (host_id, app_version_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
