-- wseq database schema: the latest version, loaded into a new project's
-- database by make_project (db_create_database + db_load_schema) or by
-- "db_upgrade --create". An existing database is brought up to date by the
-- files in db/upgrade/ instead (see doc/db_upgrade.md).
--
-- The first tables are BOINC's, with BOINC's table names, column names and
-- meanings, so an administrator's SQL carries over. Differences from BOINC:
-- ids and times are BIGINT (no 2038, no 2^31 rows), every column is NOT NULL
-- with a default (the server runs in strict SQL mode), text is utf8mb4 with
-- binary collation (file-like names are case-sensitive), and workunit/result
-- carry the work-sequence columns seq_id, seqno, branch (0 for ordinary jobs).
-- The work-sequence tables follow: sequence, sequence_group, seq_file.
--
-- When you change this file: add db/upgrade/NNN_what.sql doing the same to
-- an existing database, record NNN at the end of this file, and set
-- DB_SCHEMA_VERSION in db/db.h to NNN. The test t0100-db-schema checks all
-- three agree. Each record type's column list lives in db/db_records.c; the
-- round-trip test fails when the two disagree.

CREATE TABLE `platform` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    user_friendly_name  VARCHAR(254) NOT NULL DEFAULT '',
    deprecated          INT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY platform_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `app` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    min_version         INT NOT NULL DEFAULT 0,
    deprecated          INT NOT NULL DEFAULT 0,
    user_friendly_name  VARCHAR(254) NOT NULL DEFAULT '',
    homogeneous_redundancy INT NOT NULL DEFAULT 0,
    weight              DOUBLE NOT NULL DEFAULT 1,
    beta                INT NOT NULL DEFAULT 0,
    target_nresults     INT NOT NULL DEFAULT 0,
    -- wseq: adaptive replication (with target_nresults > 1): a host's jobs of
    -- a version go singly once it has trust_after consecutive valid results
    -- of it, each still replicated (spot-checked) with probability spot_check
    trust_after         INT NOT NULL DEFAULT 10,
    spot_check          DOUBLE NOT NULL DEFAULT 0.1,
    min_avg_pfc         DOUBLE NOT NULL DEFAULT 1,
    host_scale_check    INT NOT NULL DEFAULT 0,
    homogeneous_app_version INT NOT NULL DEFAULT 0,
    non_cpu_intensive   INT NOT NULL DEFAULT 0,
    locality_scheduling INT NOT NULL DEFAULT 0,
    n_size_classes      INT NOT NULL DEFAULT 0,
    fraction_done_exact INT NOT NULL DEFAULT 0,
    keywords            VARCHAR(254) NOT NULL DEFAULT '',
    -- wseq: jobs of this app are work sequences (a Condor job becomes one)
    is_seq_app          INT NOT NULL DEFAULT 0,
    -- wseq: jobs bring their own executable, run by wseq_wrapper (admin's choice)
    any_executable      INT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY app_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `app_version` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    appid               BIGINT NOT NULL,
    version_num         INT NOT NULL,
    platformid          BIGINT NOT NULL,
    xml_doc             MEDIUMBLOB NOT NULL DEFAULT '',
    min_core_version    INT NOT NULL DEFAULT 0,
    max_core_version    INT NOT NULL DEFAULT 0,
    deprecated          INT NOT NULL DEFAULT 0,
    plan_class          VARCHAR(254) NOT NULL DEFAULT '',
    pfc_n               DOUBLE NOT NULL DEFAULT 0,
    pfc_avg             DOUBLE NOT NULL DEFAULT 0,
    pfc_scale           DOUBLE NOT NULL DEFAULT 0,
    expavg_credit       DOUBLE NOT NULL DEFAULT 0,
    expavg_time         DOUBLE NOT NULL DEFAULT 0,
    beta                INT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY apvp (appid, platformid, version_num, plan_class)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `user` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    email_addr          VARCHAR(254) NOT NULL,  -- stored lower-cased (unique without case)
    name                VARCHAR(254) NOT NULL DEFAULT '',
    authenticator       VARCHAR(254) NOT NULL,
    country             VARCHAR(254) NOT NULL DEFAULT '',
    postal_code         VARCHAR(254) NOT NULL DEFAULT '',
    total_credit        DOUBLE NOT NULL DEFAULT 0,
    expavg_credit       DOUBLE NOT NULL DEFAULT 0,
    expavg_time         DOUBLE NOT NULL DEFAULT 0,
    global_prefs        MEDIUMBLOB NOT NULL DEFAULT '',
    project_prefs       MEDIUMBLOB NOT NULL DEFAULT '',
    teamid              BIGINT NOT NULL DEFAULT 0,
    venue               VARCHAR(254) NOT NULL DEFAULT '',
    url                 VARCHAR(254) NOT NULL DEFAULT '',
    send_email          INT NOT NULL DEFAULT 0,
    show_hosts          INT NOT NULL DEFAULT 0,
    posts               INT NOT NULL DEFAULT 0,
    seti_id             INT NOT NULL DEFAULT 0,
    seti_nresults       INT NOT NULL DEFAULT 0,
    seti_last_result_time INT NOT NULL DEFAULT 0,
    seti_total_cpu      DOUBLE NOT NULL DEFAULT 0,
    signature           VARCHAR(254) NOT NULL DEFAULT '',
    has_profile         INT NOT NULL DEFAULT 0,
    cross_project_id    VARCHAR(254) NOT NULL DEFAULT '',
    passwd_hash         VARCHAR(254) NOT NULL DEFAULT '',
    email_validated     INT NOT NULL DEFAULT 0,
    donated             INT NOT NULL DEFAULT 0,
    login_token         VARCHAR(32) NOT NULL DEFAULT '',
    login_token_time    DOUBLE NOT NULL DEFAULT 0,
    previous_email_addr VARCHAR(254) NOT NULL DEFAULT '',
    email_addr_change_time DOUBLE NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY user_email (email_addr),
    UNIQUE KEY user_auth (authenticator),
    KEY user_name (name),
    KEY user_team (teamid),
    KEY user_avg (expavg_credit),
    KEY user_total (total_credit),
    KEY user_create (create_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `host` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    userid              BIGINT NOT NULL DEFAULT 0,
    rpc_seqno           INT NOT NULL DEFAULT 0,
    rpc_time            BIGINT NOT NULL DEFAULT 0,
    total_credit        DOUBLE NOT NULL DEFAULT 0,
    expavg_credit       DOUBLE NOT NULL DEFAULT 0,
    expavg_time         DOUBLE NOT NULL DEFAULT 0,
    timezone            INT NOT NULL DEFAULT 0,
    domain_name         VARCHAR(254) NOT NULL DEFAULT '',
    serialnum           VARCHAR(254) NOT NULL DEFAULT '',
    last_ip_addr        VARCHAR(254) NOT NULL DEFAULT '',
    nsame_ip_addr       INT NOT NULL DEFAULT 0,
    on_frac             DOUBLE NOT NULL DEFAULT 0,
    connected_frac      DOUBLE NOT NULL DEFAULT 0,
    active_frac         DOUBLE NOT NULL DEFAULT 0,
    cpu_efficiency      DOUBLE NOT NULL DEFAULT 0,
    duration_correction_factor DOUBLE NOT NULL DEFAULT 0,
    p_ncpus             INT NOT NULL DEFAULT 0,
    p_vendor            VARCHAR(254) NOT NULL DEFAULT '',
    p_model             VARCHAR(254) NOT NULL DEFAULT '',
    p_fpops             DOUBLE NOT NULL DEFAULT 0,
    p_iops              DOUBLE NOT NULL DEFAULT 0,
    p_membw             DOUBLE NOT NULL DEFAULT 0,
    os_name             VARCHAR(254) NOT NULL DEFAULT '',
    os_version          VARCHAR(254) NOT NULL DEFAULT '',
    m_nbytes            DOUBLE NOT NULL DEFAULT 0,
    m_cache             DOUBLE NOT NULL DEFAULT 0,
    m_swap              DOUBLE NOT NULL DEFAULT 0,
    d_total             DOUBLE NOT NULL DEFAULT 0,
    d_free              DOUBLE NOT NULL DEFAULT 0,
    d_boinc_used_total  DOUBLE NOT NULL DEFAULT 0,
    d_boinc_used_project DOUBLE NOT NULL DEFAULT 0,
    d_boinc_max         DOUBLE NOT NULL DEFAULT 0,
    n_bwup              DOUBLE NOT NULL DEFAULT 0,
    n_bwdown            DOUBLE NOT NULL DEFAULT 0,
    credit_per_cpu_sec  DOUBLE NOT NULL DEFAULT 0,
    venue               VARCHAR(254) NOT NULL DEFAULT '',
    nresults_today      INT NOT NULL DEFAULT 0,
    avg_turnaround      DOUBLE NOT NULL DEFAULT 0,
    host_cpid           VARCHAR(254) NOT NULL DEFAULT '',
    external_ip_addr    VARCHAR(254) NOT NULL DEFAULT '',
    max_results_day     INT NOT NULL DEFAULT 0,
    error_rate          DOUBLE NOT NULL DEFAULT 0,
    product_name        VARCHAR(254) NOT NULL DEFAULT '',
    gpu_active_frac     DOUBLE NOT NULL DEFAULT 0,
    p_ngpus             INT NOT NULL DEFAULT 0,
    p_gpu_fpops         DOUBLE NOT NULL DEFAULT 0,
    misc                MEDIUMBLOB NOT NULL DEFAULT '',
    PRIMARY KEY (id),
    KEY host_user (userid),
    KEY host_cpid (host_cpid(64)),
    KEY host_rpc_time (rpc_time),
    KEY host_avg (expavg_credit),
    KEY host_total (total_credit),
    KEY host_create (create_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Teams (BOINC's columns); name_lc, the name lower-cased, makes names unique
-- without regard to case.
CREATE TABLE `team` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    userid              BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    name_lc             VARCHAR(254) NOT NULL DEFAULT '',
    url                 VARCHAR(254) NOT NULL DEFAULT '',
    type                INT NOT NULL DEFAULT 0,
    name_html           VARCHAR(254) NOT NULL DEFAULT '',
    description         TEXT NOT NULL DEFAULT '',
    nusers              INT NOT NULL DEFAULT 0,
    country             VARCHAR(254) NOT NULL DEFAULT '',
    total_credit        DOUBLE NOT NULL DEFAULT 0,
    expavg_credit       DOUBLE NOT NULL DEFAULT 0,
    expavg_time         DOUBLE NOT NULL DEFAULT 0,
    seti_id             INT NOT NULL DEFAULT 0,
    ping_user           BIGINT NOT NULL DEFAULT 0,
    ping_time           BIGINT NOT NULL DEFAULT 0,
    joinable            INT NOT NULL DEFAULT 1,
    PRIMARY KEY (id),
    UNIQUE KEY team_name_lc (name_lc),
    KEY team_avg (expavg_credit),
    KEY team_userid (userid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;


-- Only what the server and back end need is broken out into columns; what
-- the client needs (files, command line) is in xml_doc.
CREATE TABLE `workunit` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    appid               BIGINT NOT NULL,
    name                VARCHAR(254) NOT NULL,
    xml_doc             MEDIUMBLOB NOT NULL DEFAULT '',
    batch               BIGINT NOT NULL DEFAULT 0,
    rsc_fpops_est       DOUBLE NOT NULL DEFAULT 0,
    rsc_fpops_bound     DOUBLE NOT NULL DEFAULT 0,
    rsc_memory_bound    DOUBLE NOT NULL DEFAULT 0,
    rsc_disk_bound      DOUBLE NOT NULL DEFAULT 0,
    need_validate       INT NOT NULL DEFAULT 0,
    canonical_resultid  BIGINT NOT NULL DEFAULT 0,
    canonical_credit    DOUBLE NOT NULL DEFAULT 0,
    transition_time     BIGINT NOT NULL DEFAULT 0,
    delay_bound         INT NOT NULL DEFAULT 0,
    error_mask          INT NOT NULL DEFAULT 0,
    file_delete_state   INT NOT NULL DEFAULT 0,
    assimilate_state    INT NOT NULL DEFAULT 0,
    hr_class            INT NOT NULL DEFAULT 0,
    opaque              DOUBLE NOT NULL DEFAULT 0,
    min_quorum          INT NOT NULL DEFAULT 0,
    target_nresults     INT NOT NULL DEFAULT 0,
    max_error_results   INT NOT NULL DEFAULT 0,
    max_total_results   INT NOT NULL DEFAULT 0,
    max_success_results INT NOT NULL DEFAULT 0,
    result_template_file VARCHAR(254) NOT NULL DEFAULT '',
    priority            INT NOT NULL DEFAULT 0,
    mod_time            TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
    rsc_bandwidth_bound DOUBLE NOT NULL DEFAULT 0,
    fileset_id          BIGINT NOT NULL DEFAULT 0,
    app_version_id      BIGINT NOT NULL DEFAULT 0,
    transitioner_flags  INT NOT NULL DEFAULT 0,
    size_class          INT NOT NULL DEFAULT -1,
    keywords            VARCHAR(254) NOT NULL DEFAULT '',
    app_version_num     INT NOT NULL DEFAULT 0,
    -- wseq: the segment (seq_id, branch, seqno) this workunit is; 0 0 0 if none
    seq_id              BIGINT NOT NULL DEFAULT 0,
    seqno               INT NOT NULL DEFAULT 0,
    branch              INT NOT NULL DEFAULT 0,
    -- wseq: 1 once the file deleter has recorded the input files in wu_file
    files_indexed       INT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY wu_name (name),
    KEY wu_val (appid, need_validate),
    KEY wu_timeout (transition_time),
    KEY wu_filedel (file_delete_state),
    KEY wu_assim (appid, assimilate_state),
    KEY wu_batch (batch),
    KEY wu_seq (seq_id, branch, seqno),
    KEY wu_files_indexed (files_indexed)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- wseq: the physical input files of the workunits whose files are not yet
-- deleted, so the file deleter keeps a file another workunit still uses
-- (input files are shared by many jobs). Filled by the file deleter for
-- every workunit with files_indexed=0; a workunit's rows go when its files
-- are deleted.
CREATE TABLE `wu_file` (
    name                VARCHAR(254) NOT NULL,
    workunitid          BIGINT NOT NULL,
    PRIMARY KEY (name, workunitid),
    KEY wu_file_wu (workunitid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `result` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    workunitid          BIGINT NOT NULL,
    server_state        INT NOT NULL DEFAULT 0,
    outcome             INT NOT NULL DEFAULT 0,
    client_state        INT NOT NULL DEFAULT 0,
    hostid              BIGINT NOT NULL DEFAULT 0,
    userid              BIGINT NOT NULL DEFAULT 0,
    report_deadline     BIGINT NOT NULL DEFAULT 0,
    sent_time           BIGINT NOT NULL DEFAULT 0,
    received_time       BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    cpu_time            DOUBLE NOT NULL DEFAULT 0,
    xml_doc_in          MEDIUMBLOB NOT NULL DEFAULT '',
    xml_doc_out         MEDIUMBLOB NOT NULL DEFAULT '',
    stderr_out          MEDIUMBLOB NOT NULL DEFAULT '',
    batch               BIGINT NOT NULL DEFAULT 0,
    file_delete_state   INT NOT NULL DEFAULT 0,
    validate_state      INT NOT NULL DEFAULT 0,
    -- wseq: why the validator judged it so (VALIDATE_WHY_* in db_records.h)
    validate_why        INT NOT NULL DEFAULT 0,
    claimed_credit      DOUBLE NOT NULL DEFAULT 0,
    granted_credit      DOUBLE NOT NULL DEFAULT 0,
    opaque              DOUBLE NOT NULL DEFAULT 0,
    random              INT NOT NULL DEFAULT 0,
    app_version_num     INT NOT NULL DEFAULT 0,
    appid               BIGINT NOT NULL DEFAULT 0,
    exit_status         INT NOT NULL DEFAULT 0,
    teamid              BIGINT NOT NULL DEFAULT 0,
    priority            INT NOT NULL DEFAULT 0,
    mod_time            TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
    elapsed_time        DOUBLE NOT NULL DEFAULT 0,
    flops_estimate      DOUBLE NOT NULL DEFAULT 0,
    app_version_id      BIGINT NOT NULL DEFAULT 0,
    runtime_outlier     INT NOT NULL DEFAULT 0,
    size_class          INT NOT NULL DEFAULT -1,
    peak_working_set_size DOUBLE NOT NULL DEFAULT 0,
    peak_swap_size      DOUBLE NOT NULL DEFAULT 0,
    peak_disk_usage     DOUBLE NOT NULL DEFAULT 0,
    -- wseq: copy of the workunit's seq_id, so a host's segments are found
    -- without a join
    seq_id              BIGINT NOT NULL DEFAULT 0,
    -- wseq: an unsent result a scheduler process claimed ahead holds it until
    -- then (unix time); others pass it over while they have other work
    lease_until         BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY res_name (name),
    KEY res_wuid (workunitid),
    -- DESC on priority so the scheduler's "ORDER BY priority DESC, id" reads the
    -- index in order instead of sorting every unsent result (MariaDB >= 10.8)
    KEY ind_res_st (server_state, priority DESC, id),
    KEY res_app_state (appid, server_state),
    -- app_version_id too: jobs in progress counted per version from the index alone
    KEY res_deadline (server_state, report_deadline, app_version_id),
    KEY res_filedel (file_delete_state),
    KEY res_hostid_state (hostid, server_state),
    KEY res_userid_id (userid, id),
    KEY res_seq (seq_id, server_state),
    KEY res_batch_state (batch, server_state)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Remote job submission (BOINC's batch, job_file, batch_file_assoc,
-- user_submit, user_submit_app); see gahp-and-remote-submit.md.
CREATE TABLE `batch` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    user_id             BIGINT NOT NULL DEFAULT 0,
    create_time         BIGINT NOT NULL DEFAULT 0,
    logical_start_time  DOUBLE NOT NULL DEFAULT 0,
    logical_end_time    DOUBLE NOT NULL DEFAULT 0,
    est_completion_time DOUBLE NOT NULL DEFAULT 0,
    njobs               INT NOT NULL DEFAULT 0,
    fraction_done       DOUBLE NOT NULL DEFAULT 0,
    nerror_jobs         INT NOT NULL DEFAULT 0,
    state               INT NOT NULL DEFAULT 0,
    completion_time     DOUBLE NOT NULL DEFAULT 0,
    credit_estimate     DOUBLE NOT NULL DEFAULT 0,
    credit_canonical    DOUBLE NOT NULL DEFAULT 0,
    credit_total        DOUBLE NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL DEFAULT '',
    app_id              BIGINT NOT NULL DEFAULT 0,
    project_state       INT NOT NULL DEFAULT 0,
    description         VARCHAR(254) NOT NULL DEFAULT '',
    expire_time         DOUBLE NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    KEY batch_name (name),
    KEY batch_user (user_id),
    KEY batch_state_expire (state, expire_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `job_file` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    name                VARCHAR(254) NOT NULL,
    create_time         DOUBLE NOT NULL DEFAULT 0,
    delete_time         DOUBLE NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY job_file_name (name),
    KEY job_file_delete (delete_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `batch_file_assoc` (
    job_file_id         BIGINT NOT NULL,
    batch_id            BIGINT NOT NULL,
    PRIMARY KEY (job_file_id, batch_id),
    KEY bfa_batch (batch_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `user_submit` (
    user_id             BIGINT NOT NULL,
    quota               DOUBLE NOT NULL DEFAULT 0,
    logical_start_time  DOUBLE NOT NULL DEFAULT 0,
    submit_all          INT NOT NULL DEFAULT 0,
    manage_all          INT NOT NULL DEFAULT 0,
    max_jobs_in_progress INT NOT NULL DEFAULT 0,
    -- wseq: may submit jobs with their own executable to any_executable apps
    any_executable      INT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `user_submit_app` (
    user_id             BIGINT NOT NULL,
    app_id              BIGINT NOT NULL,
    manage              INT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, app_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Work sequences. A sequence row is the head of a chain of segments (the
-- workunits with this seq_id); the scheduler sends the live branch's
-- segments to the assigned host, the relocator moves the sequence to
-- another host by starting a new branch (the old segments stay as a dead
-- branch). Seqnos start at 1; seqno 0 stands for the initial input.
CREATE TABLE `sequence` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    appid               BIGINT NOT NULL,
    userid              BIGINT NOT NULL DEFAULT 0,   -- submitter (0: admin)
    batch               BIGINT NOT NULL DEFAULT 0,   -- remote-submit batch, if any
    groupid             BIGINT NOT NULL DEFAULT 0,   -- sequence_group, 0 if alone
    is_master           INT NOT NULL DEFAULT 0,      -- the group's master
    hostid              BIGINT NOT NULL DEFAULT 0,   -- assigned host, 0 = unassigned
    assign_time         BIGINT NOT NULL DEFAULT 0,
    max_result_time     DOUBLE NOT NULL DEFAULT 0,   -- seconds a segment may take
    first_unvalidated_seqno INT NOT NULL DEFAULT 1,  -- first segment without a valid result
    first_unsent_seqno  INT NOT NULL DEFAULT 1,      -- first segment not sent to hostid
    nsegments           INT NOT NULL DEFAULT 0,      -- segments created so far (live branch)
    target_nsegments    INT NOT NULL DEFAULT 0,      -- known length; 0 = open-ended
    answer_every        INT NOT NULL DEFAULT 1,      -- N: answer files uploaded every Nth segment
    state_upload_every  INT NOT NULL DEFAULT 1,      -- M: state files uploaded every Mth segment
    high_water          INT NOT NULL DEFAULT 2,      -- segments in flight on the host
    branch              INT NOT NULL DEFAULT 0,      -- live branch
    last_state_seqno    INT NOT NULL DEFAULT 0,      -- latest segment whose state is on the server
    state               INT NOT NULL DEFAULT 0,      -- SEQ_STATE_*
    need_relocate       INT NOT NULL DEFAULT 0,      -- SEQ_RELOCATE_* reason, 0 = none
    nrelocations        INT NOT NULL DEFAULT 0,
    error_msg           VARCHAR(254) NOT NULL DEFAULT '',
    -- how extend_sequence makes new segments
    wu_template         VARCHAR(254) NOT NULL DEFAULT '',
    result_template_file VARCHAR(254) NOT NULL DEFAULT '',
    rsc_fpops_est       DOUBLE NOT NULL DEFAULT 0,
    rsc_fpops_bound     DOUBLE NOT NULL DEFAULT 0,
    rsc_memory_bound    DOUBLE NOT NULL DEFAULT 0,
    rsc_disk_bound      DOUBLE NOT NULL DEFAULT 0,
    delay_bound         INT NOT NULL DEFAULT 0,
    priority            INT NOT NULL DEFAULT 0,
    opaque              DOUBLE NOT NULL DEFAULT 0,
    command_line        VARCHAR(254) NOT NULL DEFAULT '',  -- every segment's
    mod_time            TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
    PRIMARY KEY (id),
    UNIQUE KEY seq_name (name),
    KEY seq_host (hostid, state),
    KEY seq_state_host (state, hostid),
    KEY seq_relocate (need_relocate),
    KEY seq_group (groupid),
    KEY seq_batch (batch)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Sequences started from identical initial state, compared segment by
-- segment by the validator once min_quorum of them have reported.
CREATE TABLE `sequence_group` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,
    master_seqid        BIGINT NOT NULL DEFAULT 0,
    nmembers            INT NOT NULL DEFAULT 0,
    min_quorum          INT NOT NULL DEFAULT 0,
    state               INT NOT NULL DEFAULT 0,      -- SEQ_STATE_*
    mod_time            TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
    PRIMARY KEY (id),
    UNIQUE KEY seq_group_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One row per output file of a segment: a state file (sticky on the host,
-- uploaded every Mth segment) or an answer file (uploaded every Nth).
-- Relocation needs to know which state files are on the server.
CREATE TABLE `seq_file` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    name                VARCHAR(254) NOT NULL,       -- physical name (seq, branch, seqno in it)
    seq_id              BIGINT NOT NULL,
    branch              INT NOT NULL DEFAULT 0,
    seqno               INT NOT NULL DEFAULT 0,
    kind                INT NOT NULL DEFAULT 0,      -- SEQ_FILE_STATE, SEQ_FILE_ANSWER
    upload              INT NOT NULL DEFAULT 0,      -- 1: to be uploaded, 0: sticky only
    uploaded            INT NOT NULL DEFAULT 0,      -- 1: present on the server
    upload_time         BIGINT NOT NULL DEFAULT 0,
    nbytes              DOUBLE NOT NULL DEFAULT 0,
    md5_cksum           VARCHAR(64) NOT NULL DEFAULT '',
    file_delete_state   INT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    UNIQUE KEY seq_file_name (name),
    KEY seq_file_seg (seq_id, branch, seqno),
    KEY seq_file_del (file_delete_state)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The web site's login sessions (md5 of the cookie's token).
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

-- Mailed links (password reset 1, address change 2, deletion 3): md5 of the
-- link's token, when it stops working, when it was used (once); data: the
-- new address of a change.
CREATE TABLE `mail_token` (
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

-- The project's news: posted, edited and withdrawn by admins on the ops
-- pages; the public news page and the RSS feed of notices show the items
-- not withdrawn. Plain text, escaped wherever shown.
CREATE TABLE `news` (
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

-- The throttle of password and account-key guesses, every door's: attempts
-- in a fixed window of 15 minutes by kind (1 the client's address, 2 the
-- md5 of the account's lower-cased e-mail address) and key, counted before the
-- password or key is checked; a success gives its attempt back.
CREATE TABLE `auth_throttle` (
    kind                INT NOT NULL,
    k                   VARCHAR(254) NOT NULL,
    n                   INT NOT NULL DEFAULT 0,
    window_start        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, k),
    KEY at_window (window_start)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The project's administrators: who may use the ops pages (account grant
-- --ops). A right of its own: submit rights never make an admin.
CREATE TABLE `ops_admin` (
    user_id             BIGINT NOT NULL,
    grant_time          BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Jobs for one host, one user's hosts or one team's (create_work
-- --target_host, --target_user, --target_team), as upstream's table:
-- target_type 1 host, 2 user, 3 team. Their results wait INACTIVE
-- (server_state 1), out of every other host's way, until the scheduler
-- sends them to a host they are for. multi (upstream's broadcast) is 0.
CREATE TABLE `assignment` (
    id                  BIGINT NOT NULL AUTO_INCREMENT,
    create_time         BIGINT NOT NULL DEFAULT 0,
    target_id           BIGINT NOT NULL DEFAULT 0,
    target_type         INT NOT NULL DEFAULT 0,
    multi               INT NOT NULL DEFAULT 0,
    workunitid          BIGINT NOT NULL DEFAULT 0,
    resultid            BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    KEY asgn_target (target_type, target_id),
    KEY asgn_wu (workunitid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The measured speed of each app version on each host (upstream's
-- host_app_version, simplified): the scheduler adds every successful job it
-- records (n_jobs; flops_avg, the moving average of rsc_fpops_est /
-- elapsed_time; elapsed_avg, of elapsed_time -- each new job weighs 1/n up
-- to n = 10, then 0.1), the validator every verdict (n_valid, n_invalid,
-- consecutive_valid, which an invalid result resets to 0), and every
-- outcome its reliability: n_errors (client errors and missed deadlines,
-- which also reset consecutive_valid), error_rate (the moving average of
-- "not valid" over every outcome) and turnaround_avg (of received_time -
-- sent_time; a missed deadline counts its delay bound). last_update is
-- the unix time of the last change. The scheduler's choice of version reads
-- a host's rows (db_hav_enum_host).
CREATE TABLE `host_app_version` (
    host_id             BIGINT NOT NULL,
    app_version_id      BIGINT NOT NULL,
    n_jobs              BIGINT NOT NULL DEFAULT 0,
    n_valid             BIGINT NOT NULL DEFAULT 0,
    n_invalid           BIGINT NOT NULL DEFAULT 0,
    n_errors            BIGINT NOT NULL DEFAULT 0,
    consecutive_valid   BIGINT NOT NULL DEFAULT 0,
    error_rate          DOUBLE NOT NULL DEFAULT 0,
    flops_avg           DOUBLE NOT NULL DEFAULT 0,
    elapsed_avg         DOUBLE NOT NULL DEFAULT 0,
    turnaround_avg      DOUBLE NOT NULL DEFAULT 0,
    last_update         BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (host_id, app_version_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- the validator granted each user for each app -- the total and the number
-- of credited results -- written in the transaction that grants the credit.
-- A team's credit per app is the sum over its members (a join, no table).
CREATE TABLE `credit_by_app` (
    userid              BIGINT NOT NULL,
    appid               BIGINT NOT NULL,
    total_credit        DOUBLE NOT NULL DEFAULT 0,
    njobs               BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (userid, appid),
    KEY cba_app (appid, total_credit)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Applied schema versions: the current version is MAX(version).
CREATE TABLE `schema_version` (
    version             INT NOT NULL,
    applied_time        BIGINT NOT NULL DEFAULT 0,
    description         VARCHAR(254) NOT NULL DEFAULT '',
    PRIMARY KEY (version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT INTO `schema_version` (version, applied_time, description)
    VALUES (19, UNIX_TIMESTAMP(), 'schema.sql');
