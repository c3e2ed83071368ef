/* The backend library: see backend/Makefile.inc. */
#ifndef WSEQ_BACKEND_H
#define WSEQ_BACKEND_H
const char *backend_version(void);
#endif
