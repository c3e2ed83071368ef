-- 019: results claimed ahead (issue 34): a FastCGI scheduler process leases
-- a batch of unsent results in one statement and hands them out from memory
-- to the requests it serves; lease_until (unix time) marks them, so other
-- processes pass them over while they have other work. A process killed
-- with results in hand gives nothing up: the lease ends and others take
-- them. Sending still claims a result only while it is unsent, so none is
-- ever sent twice.
ALTER TABLE `result`
    ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0 AFTER seq_id;
