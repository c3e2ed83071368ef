-- 011: one throttle for every door that takes a password or an account key
-- (the account RPCs, the join and sign-in forms, the ops sign-in). Attempts
-- are counted before the check, by client address (kind 1) and by account
-- (kind 2: md5 of the lower-cased e-mail address), in fixed windows; a success
-- gives its attempt back. It replaces login_failure, which counted wrong
-- passwords only after checking them (parallel guesses outran it).
DROP TABLE IF EXISTS `login_failure`;
CREATE TABLE IF NOT EXISTS `auth_throttle` (
    kind                INT NOT NULL,
    k                   VARCHAR(254) NOT NULL,
    n                   INT NOT NULL DEFAULT 0,
    window_start        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, k),
    KEY at_window (window_start)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
