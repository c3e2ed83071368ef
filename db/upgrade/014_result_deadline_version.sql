-- 014: results' index on (server_state, report_deadline) also holds
-- app_version_id, so the jobs in progress are counted per app version --
-- server_status's tasks per resource, the scheduler's limits per resource --
-- from the index alone. Sending a job rewrites this index entry anyway (its
-- server_state and deadline change), so the scheduler's writes cost no more.
-- On a large result table this rebuilds one index: minutes, once.
ALTER TABLE `result` DROP INDEX `res_deadline`,
    ADD KEY `res_deadline` (server_state, report_deadline, app_version_id);
