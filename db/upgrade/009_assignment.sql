-- 009: jobs for one host, one user's hosts or one team's (create_work
-- --target_host, --target_user, --target_team), in upstream BOINC's table.
-- Their results wait INACTIVE (server_state 1), out of every other host's
-- way, until the scheduler sends them to a host they are for.
CREATE TABLE `assignment` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    target_id           BIGINT NOT NULL DEFAULT 0,
    target_type         INT NOT NULL DEFAULT 0,
    multi               INT NOT NULL DEFAULT 0,
    workunitid          BIGINT NOT NULL DEFAULT 0,
    resultid            BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    KEY asgn_target (target_type, target_id),
    KEY asgn_wu (workunitid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
