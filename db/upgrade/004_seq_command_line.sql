-- 004: sequence.command_line, the arguments of every segment (create_sequence,
-- extend_sequence and the relocator make segments from it).
ALTER TABLE `sequence` ADD COLUMN IF NOT EXISTS
    command_line        VARCHAR(254) NOT NULL DEFAULT '' AFTER opaque;
