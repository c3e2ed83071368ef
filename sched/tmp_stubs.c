#include "plan_class.h"
#include "db_sched.h"
int db_hav_enum_host(struct db *db, int64_t hostid, int (*fn)(struct db_host_app_version *, void *), void *arg) { (void)db;(void)hostid;(void)fn;(void)arg; return 0; }
int plan_classes_read(const char *path, struct plan_classes *pcs, struct sbuf *notes, struct sbuf *err) {(void)path;(void)pcs;(void)notes;(void)err;return 0;}
void plan_classes_free(struct plan_classes *pcs){(void)pcs;}
const struct plan_class *plan_class_find(const struct plan_classes *pcs, const char *name){(void)pcs;(void)name;return NULL;}
void host_usage_cpu(const struct sched_request *req, struct host_usage *u){memset(u,0,sizeof(*u));u->avg_ncpus=u->max_ncpus=1;u->projected_flops=req->host.p_fpops>0?req->host.p_fpops:1e9;}
bool plan_class_check(const struct plan_class *pc, const struct sched_request *req, struct host_usage *u, char *why, size_t whylen){(void)pc;(void)req;(void)u;(void)why;(void)whylen;return false;}
