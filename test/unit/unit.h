/* Shared includes for the cmocka unit tests (cmocka needs these first). */
#ifndef WSEQ_UNIT_H
#define WSEQ_UNIT_H
#include "common.h"
#include <setjmp.h>
#include <cmocka.h>
#endif
