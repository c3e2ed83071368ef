-- 006: a project volunteers can join. BOINC's team table; every user gets a
-- cross-project id (32 random hex digits, stable once given); e-mail
-- addresses are stored lower-cased so the unique key compares them without
-- case (an address that would collide with another stays as it was).
CREATE TABLE `team` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    userid              BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    name_lc             VARCHAR(254) NOT NULL DEFAULT '',
    url                 VARCHAR(254) NOT NULL DEFAULT '',
    type                INT NOT NULL DEFAULT 0,
    name_html           VARCHAR(254) NOT NULL DEFAULT '',
    description         TEXT NOT NULL DEFAULT '',
    nusers              INT NOT NULL DEFAULT 0,
    country             VARCHAR(254) NOT NULL DEFAULT '',
    total_credit        DOUBLE NOT NULL DEFAULT 0,
    expavg_credit       DOUBLE NOT NULL DEFAULT 0,
    expavg_time         DOUBLE NOT NULL DEFAULT 0,
    seti_id             INT NOT NULL DEFAULT 0,
    ping_user           BIGINT NOT NULL DEFAULT 0,
    ping_time           BIGINT NOT NULL DEFAULT 0,
    joinable            INT NOT NULL DEFAULT 1,
    PRIMARY KEY (id),
    UNIQUE KEY team_name_lc (name_lc),
    KEY team_avg (expavg_credit),
    KEY team_userid (userid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
UPDATE `user` SET cross_project_id = MD5(CONCAT(RAND(), id, UUID()))
    WHERE cross_project_id = '';
UPDATE IGNORE `user` SET email_addr = LOWER(email_addr);
ALTER TABLE `user` ADD KEY user_team (teamid), ADD KEY user_avg (expavg_credit),
    ADD KEY user_total (total_credit);
ALTER TABLE `host` ADD KEY host_avg (expavg_credit), ADD KEY host_total (total_credit);
