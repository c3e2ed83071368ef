-- 017: mailed links (password reset, e-mail address change, account
-- deletion). A link carries a random token; the table keeps only its md5,
-- the account, what it is for (kind 1 reset, 2 address change, 3 deletion),
-- when it stops working and when it was used (a link works once); an
-- address change keeps the new address (data) until its link is followed.
CREATE TABLE IF NOT EXISTS `mail_token` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    token_hash          VARCHAR(32) NOT NULL,
    userid              BIGINT NOT NULL,
    kind                INT NOT NULL,
    create_time         BIGINT NOT NULL DEFAULT 0,
    expire_time         BIGINT NOT NULL DEFAULT 0,
    used_time           BIGINT NOT NULL DEFAULT 0,
    data                VARCHAR(254) NOT NULL DEFAULT '',
    PRIMARY KEY (id),
    UNIQUE KEY mt_token (token_hash),
    KEY mt_user (userid),
    KEY mt_expire (expire_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
