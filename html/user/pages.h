/* The volunteers' pages, one function each (see pages.c for their URLs). */
#ifndef WSEQ_PAGES_H
#define WSEQ_PAGES_H

#include "page.h"

/* pages.c */
void page_home(struct page *p);
/* pages_account.c */
/* A labelled input of a form (value: shown escaped; NULL for none). */
void page_field_row(struct page *p, const char *label, const char *name, const char *type,
		    const char *value, const char *autocomplete);
/* <form method=post action=...> with its CSRF field. */
void page_form_start(struct page *p, const char *action);
/* A paragraph saying msg as an error (nothing for NULL). */
void page_error_para(struct page *p, const char *msg);
/* The characters (UTF-8) of s, as the password rules count them. */
long page_chars(const char *s);
void page_join(struct page *p);
void page_login_form(struct page *p);
void page_logout_post(struct page *p);
void page_account(struct page *p);
void page_show_user(struct page *p);
void page_host(struct page *p);
void page_results(struct page *p);
/* pages_mail.c: what is done by mail */
void page_get_passwd(struct page *p);
void page_reset_passwd(struct page *p);
void page_edit_email(struct page *p);
void page_confirm_email(struct page *p);
void page_opt_out(struct page *p);
/* pages_delete.c */
void page_delete_request(struct page *p);
void page_delete_confirm(struct page *p);
void page_account_data(struct page *p);
/* pages_prefs.c */
void page_prefs_edit(struct page *p);
/* pages_team.c */
void page_teams(struct page *p);
void page_team(struct page *p);
void page_team_create(struct page *p);
void page_team_join(struct page *p);
void page_team_leave(struct page *p);
/* pages_status.c */
void page_server_status(struct page *p);
void page_apps(struct page *p);

/* pages_news.c: the news page and its RSS feeds (the Manager's notices) */
void page_news(struct page *p);
void page_notices_rss(struct page *p);
void page_rss_main(struct page *p);

#endif
