/*
 * The admins' mailing to every user who takes the project's mail
 * (user.send_email): what bin/mail_users and the ops pages' "mail all
 * users" form both run. Each message ends with that user's own unsubscribe
 * link; users are mailed in id order, and the first message that cannot be
 * sent stops the run (resume after the last user mailed).
 */
#include "account_mail.h"
#include "config.h"
#include "db.h"
#include "db_mail.h"
#include "log.h"

#define BATCH 200

struct mailing_run {
	const struct project_config *cfg;
	const struct account_settings *set;
	const char *subject, *body;
	bool dry_run;
	struct account_mailing *m;
	bool failed;
};

static int mail_one(struct db_user *u, void *arg)
{
	struct mailing_run *r = arg;
	char code[33], *text;
	int rc = 0;

	account_opt_out_code(u, code);
	text = xasprintf("%s%s\n-- \nYou get this as a volunteer of %s. To get no more mail like "
			 "it, open\n%sopt_out.php?userid=%" PRId64 "&code=%s\n", r->body,
			 r->body[0] && r->body[strlen(r->body) - 1] == '\n' ? "" : "\n",
			 r->cfg->long_name, r->cfg->master_url, u->id, code);
	if (!r->dry_run)
		rc = account_mail(r->cfg, r->set, u->email_addr, r->subject, text);
	free(text);
	if (rc < 0) {
		r->failed = true;
		return 1;
	}
	r->m->last = u->id;
	r->m->sent++;
	return 0;
}

int account_mailing(struct db *db, const struct project_config *cfg,
		    const struct account_settings *set, const char *subject, const char *body,
		    bool dry_run, struct account_mailing *m)
{
	struct mailing_run r = { cfg, set, subject, body, dry_run, m, false };
	int64_t before;

	if (!subject || !*subject || strchr(subject, '\n') || strchr(subject, '\r'))
		return log_error("mailing: the subject is one line, not empty");
	do {
		before = m->last;
		if (db_user_mailing(db, m->last, BATCH, mail_one, &r) != DB_OK)
			r.failed = true;
	} while (!r.failed && m->last != before);
	return r.failed ? -1 : 0;
}
