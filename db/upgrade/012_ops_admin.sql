-- 012: administering the project (the ops pages) is a right of its own,
-- granted with `account grant --ops`; it is no longer read from
-- user_submit.manage_all, which `account create --submit_rights all` also
-- set. Every account with manage_all = 1 before this upgrade is an ops
-- admin after it, and its submit rights stay as they were: no account gains
-- or loses a power by the upgrade. Take ops away with `account revoke --ops`.
CREATE TABLE IF NOT EXISTS `ops_admin` (
    user_id             BIGINT NOT NULL,
    grant_time          BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
INSERT IGNORE INTO `ops_admin` (user_id, grant_time)
    SELECT user_id, UNIX_TIMESTAMP() FROM `user_submit` WHERE manage_all = 1;
