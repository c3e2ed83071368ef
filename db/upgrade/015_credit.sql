-- 015: credit per user per app (upstream's credit_user, simplified): what
-- the validator granted each user for each app -- the total and the number
-- of credited results -- written in the transaction that grants the credit.
-- A team's credit per app is the sum over its members (a join, no table).
CREATE TABLE IF NOT EXISTS `credit_by_app` (
    userid              BIGINT NOT NULL,
    appid               BIGINT NOT NULL,
    total_credit        DOUBLE NOT NULL DEFAULT 0,
    njobs               BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (userid, appid),
    KEY cba_app (appid, total_credit)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
