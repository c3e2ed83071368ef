-- 007: the web site's login sessions (the cookie holds a random token; the
-- table holds only its md5, so the table does not give sessions away), and
-- failed sign-ins by address, for rate limiting password guesses.
CREATE TABLE `web_session` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    token_hash          VARCHAR(64) NOT NULL,
    userid              BIGINT NOT NULL,
    create_time         BIGINT NOT NULL DEFAULT 0,
    expire_time         BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY ws_token (token_hash),
    KEY ws_user (userid),
    KEY ws_expire (expire_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
CREATE TABLE `login_failure` (
    addr                VARCHAR(64) NOT NULL,
    nfail               INT NOT NULL DEFAULT 0,
    window_start        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (addr)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
