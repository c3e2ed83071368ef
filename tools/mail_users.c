/*
 * mail_users: the admins' message to every volunteer who takes the
 * project's mail (user.send_email, which the unsubscribe link clears). Each
 * message ends with that user's own unsubscribe link (opt_out.php, its code
 * a secret of the account: account_opt_out_code), which works without
 * signing in. Mail goes through config.xml's <mail_server> one message at
 * a time; the first failure stops the run and says where to resume. The
 * run is account_mailing() (backend/), which the ops pages' form runs too.
 */
#include "common.h"
#include "account_mail.h"
#include "config.h"
#include "db.h"
#include "db_tool.h"
#include "fileutil.h"
#include "log.h"
#include "param.h"
#include "sbuf.h"
#include "tool.h"

#define BODY_MAX (256L << 10)

struct options {
	char *subject;
	char *body_file;
	bool dry_run;
	long after_id;
};

static const struct param options[] = {
	{ "subject", PARAM_STR, offsetof(struct options, subject), NULL, PARAM_REQUIRED, 0, 0,
	  "TEXT", "the messages' subject (one line)" },
	{ "body_file", PARAM_STR, offsetof(struct options, body_file), NULL, PARAM_REQUIRED, 0, 0,
	  "FILE", "the messages' text (UTF-8); each gets the user's unsubscribe link below it" },
	{ "dry_run", PARAM_BOOL, offsetof(struct options, dry_run), "0", 0, 0, 0, NULL,
	  "send nothing: say how many users would get the message" },
	{ "after_id", PARAM_INT, offsetof(struct options, after_id), "0", PARAM_BOUNDED, 0, 1e18,
	  "ID", "start after user ID (to resume a run that stopped)" },
	PARAM_TABLE_END
};

static const char usage[] =
	"usage: mail_users --subject TEXT --body_file FILE [--dry_run] [--after_id ID]\n\n"
	"Mail a text to every user who has not unsubscribed, each message with the\n"
	"user's own unsubscribe link. Mail goes through config.xml's <mail_server>\n"
	"(default smtp://localhost:25) from <mail_from>. Run it in the project\n"
	"directory.\n";

static struct options opts;
static struct account_settings acct_set;

static int check(struct tool_ctx *ctx)
{
	(void)ctx;
	if (!opts.subject || !*opts.subject || !opts.body_file || !*opts.body_file)
		return tool_usage_error("give --subject and --body_file");
	if (strchr(opts.subject, '\n') || strchr(opts.subject, '\r'))
		return tool_usage_error("--subject: one line, please");
	return 0;
}

static int run(struct tool_ctx *ctx)
{
	struct sbuf body = SBUF_INIT(BODY_MAX + 1);
	struct account_mailing m = { (int64_t)opts.after_id, 0 };
	int rc;

	if (read_file(opts.body_file, BODY_MAX, &body) < 0) {
		sbuf_release(&body);
		return -1;
	}
	rc = account_mailing(ctx->db, &ctx->cfg, &acct_set, opts.subject, sbuf_str(&body),
			     opts.dry_run, &m);
	sbuf_release(&body);
	printf("mail_users: %ld users %s\n", m.sent, opts.dry_run ? "would get the message" : "mailed");
	if (rc < 0)
		return log_error("stopped: resume with --after_id %" PRId64, m.last);
	return 0;
}

static const struct tool_spec mail_users_spec = {
	.name = "mail_users",
	.usage = usage,
	.params = options,
	.settings = &opts,
	.load_config = tool_load_config,
	.config_params = account_params,
	.config_settings = &acct_set,
	.open_db = db_tool_open,
	.check = check,
	.run = run,
};

int main(int argc, char **argv)
{
	return tool_main(&mail_users_spec, argc, argv);
}
