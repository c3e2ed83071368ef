/*
 * Functions that overflow buffers or keep hidden state. Included last by
 * common.h so that a use anywhere in wseq fails to compile (git's banned.h).
 */
#ifndef WSEQ_BANNED_H
#define WSEQ_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_use_sbuf_or_snprintf

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)

#endif
