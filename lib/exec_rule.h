/*
 * What a job's own text may say to wseq_wrapper on a volunteer's host
 * (doc/wseq_wrapper.md, WHAT A JOB MAY CHOOSE). The wrapper runs only what
 * the app version and the admin's job file name; a submitter's command
 * line and input open names must not reach the wrapper's choice of job
 * file or program. The submit RPCs check a job with these rules before
 * making it, the scheduler checks a workunit again before sending it
 * (sched/sched_exec_check.c): one rule, two doors.
 */
#ifndef WSEQ_EXEC_RULE_H
#define WSEQ_EXEC_RULE_H

#include "common.h"
#include "sbuf.h"

/* The wrapper's job file, by logical name: only a file of the app version may be it. */
#define EXEC_JOB_FILE "job.xml"
/* The executable's open name in an any_executable app's jobs (apps/templates/wseq_exec_job.xml). */
#define EXEC_OPEN_NAME "wseq_exec"
/* The longest open name a submitter may give. */
#define EXEC_OPEN_NAME_MAX 200

/*
 * Why a job's command line may not be given to an app that is not
 * any_executable (NULL: it may): it names a wrapper option that chooses
 * the job file (--job_file, which wseq_wrapper before this rule took from
 * its command line), however quoted or escaped.
 */
const char *exec_rule_cmdline(const char *cmd);

/*
 * Why name may not be an input file's open name (NULL: it may). Every
 * job: a plain name in the slot (no '/', not "." or ".."), and never the
 * wrapper's job file. own: the submitter chose the name (jobs of an
 * any_executable app), and then also none of the names the client, the
 * wrapper or the zip of outputs use, and a file name by dirhier's rule.
 * The reason reads after "input file open name NAME ".
 */
const char *exec_rule_open_name(const char *name, bool own);

/*
 * A workunit's xml_doc as the client will read it: every <command_line> by
 * exec_rule_cmdline, every input's open name (a <file_ref>'s <open_name>,
 * else its <file_name>, which the client then uses) by exec_rule_open_name,
 * no input <file_info> marked <executable/>. any_exec: the workunit is of
 * an any_executable app and its submitter holds that right -- the command
 * line is the job's own and its inputs may be executable, while the open
 * names still keep clear of the wrapper's. 0, or -1 with the first reason
 * in why ("its command line names ...").
 */
int exec_rule_wu_doc(const char *xml_doc, bool any_exec, struct sbuf *why);

#endif
