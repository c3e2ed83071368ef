-- 002: the input file index of the file deleter: workunit.files_indexed and
-- the wu_file table (see schema.sql). Safe to rerun after a partial run.
ALTER TABLE `workunit` ADD COLUMN IF NOT EXISTS
    files_indexed       INT NOT NULL DEFAULT 0;
ALTER TABLE `workunit` ADD KEY IF NOT EXISTS wu_files_indexed (files_indexed);
CREATE TABLE IF NOT EXISTS `wu_file` (
    name                VARCHAR(254) NOT NULL,
    workunitid          BIGINT NOT NULL,
    PRIMARY KEY (name, workunitid),
    KEY wu_file_wu (workunitid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
