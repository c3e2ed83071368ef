/* The volunteers' pages, one function each (see pages.c for their URLs). */
#ifndef WSEQ_PAGES_H
#define WSEQ_PAGES_H

#include "page.h"

/* pages.c */
void page_home(struct page *p);
/* pages_account.c */
void page_join(struct page *p);
void page_login_form(struct page *p);
void page_logout_post(struct page *p);
void page_account(struct page *p);
void page_show_user(struct page *p);
void page_host(struct page *p);
void page_results(struct page *p);
/* pages_team.c */
void page_teams(struct page *p);
void page_team(struct page *p);
void page_team_create(struct page *p);
void page_team_join(struct page *p);
void page_team_leave(struct page *p);
/* pages_status.c */
void page_server_status(struct page *p);
void page_apps(struct page *p);

#endif
