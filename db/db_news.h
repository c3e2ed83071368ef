/*
 * The project's news (table news): what the public news page, the RSS feed
 * of notices and the ops pages list. Items are written with db_news_insert()
 * and db_news_update() (db_records.h).
 */
#ifndef WSEQ_DB_NEWS_H
#define WSEQ_DB_NEWS_H

#include "db_queries.h"

extern const struct db_query dbq_news_recent, dbq_news_list;

/* Items not withdrawn posted at since or later, newest first, at most limit. */
int db_news_recent(struct db *db, int64_t since, long limit,
		   int (*fn)(struct db_news *, void *), void *arg);
/* Every item, withdrawn ones too, newest first, at most limit (the ops page). */
int db_news_list(struct db *db, long limit, int (*fn)(struct db_news *, void *), void *arg);

#endif
