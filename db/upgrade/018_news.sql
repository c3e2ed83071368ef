-- 018: the project's news (issue 33 item 3): what admins post on the ops
-- pages, shown on the public news page and in the RSS feed the BOINC
-- Manager shows as notices. Text is plain text (escaped wherever shown);
-- an item withdrawn (withdrawn=1) is shown nowhere but kept.
CREATE TABLE IF NOT EXISTS `news` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    mod_time            BIGINT NOT NULL DEFAULT 0,
    title               VARCHAR(200) NOT NULL DEFAULT '',
    text                MEDIUMTEXT NOT NULL,
    author              VARCHAR(254) NOT NULL DEFAULT '',
    withdrawn           INT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    KEY news_time (withdrawn, create_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
