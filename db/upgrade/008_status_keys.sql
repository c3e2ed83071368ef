-- 008: the server status page counts the users and hosts registered in the
-- past 24 hours through an index on create_time (a count of new hosts read
-- every host row before).
ALTER TABLE `user` ADD KEY user_create (create_time);
ALTER TABLE `host` ADD KEY host_create (create_time);
