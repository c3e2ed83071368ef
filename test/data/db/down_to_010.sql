-- Today's schema.sql taken back to version 10, for the test of upgrading
-- from it (t0100): what 011 (auth_throttle), 012 (ops_admin), 013
-- (host_app_version), 014 (res_deadline's app_version_id) and 016 (app's
-- adaptive replication, result's validate_why), 017 (mail_token), 018 (news) and 019
-- (result's lease_until) changed, undone.
ALTER TABLE `result` DROP COLUMN `lease_until`;
DROP TABLE `news`;
DROP TABLE `mail_token`;
ALTER TABLE `app` DROP COLUMN `trust_after`, DROP COLUMN `spot_check`;
ALTER TABLE `result` DROP COLUMN `validate_why`;
DROP TABLE `host_app_version`;
ALTER TABLE `result` DROP INDEX `res_deadline`, ADD KEY `res_deadline` (server_state, report_deadline);
DROP TABLE `ops_admin`;
DROP TABLE `auth_throttle`;
CREATE TABLE `login_failure` (
    addr                VARCHAR(64) NOT NULL,
    nfail               INT NOT NULL DEFAULT 0,
    window_start        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (addr)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
DELETE FROM `schema_version`;
INSERT INTO `schema_version` (version, applied_time, description)
    VALUES (10, UNIX_TIMESTAMP(), 'schema.sql at version 10');
