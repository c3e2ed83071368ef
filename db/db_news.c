/* The project's news items, listed (db_news.h). */
#include "db_news.h"
#include "db.h"

const struct db_query dbq_news_recent = {
	"news_recent", &db_news_table,
	"WHERE withdrawn=0 AND create_time>=? ORDER BY create_time DESC, id DESC LIMIT ?", "ii"
};
const struct db_query dbq_news_list = {
	"news_list", &db_news_table, "ORDER BY id DESC LIMIT ?", "i"
};

int db_news_recent(struct db *db, int64_t since, long limit,
		   int (*fn)(struct db_news *, void *), void *arg)
{
	struct db_val v[2] = { DBV_INT(since), DBV_INT(limit) };

	return db_news_query(db, &dbq_news_recent, v, 2, fn, arg);
}

int db_news_list(struct db *db, long limit, int (*fn)(struct db_news *, void *), void *arg)
{
	struct db_val v[1] = { DBV_INT(limit) };

	return db_news_query(db, &dbq_news_list, v, 1, fn, arg);
}
