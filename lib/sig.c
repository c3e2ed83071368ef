/* Signal setup (sig.h). */
#include "sig.h"

int sig_set(const int *sigs, size_t n, void (*handler)(int), int flags, struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < n; i++)
		if (sigaction(sigs[i], &sa, old ? &old[i] : NULL) < 0)
			return -1;
	return 0;
}

void sig_save(const int *sigs, size_t n, struct sigaction *old)
{
	size_t i;

	for (i = 0; i < n; i++)
		sigaction(sigs[i], NULL, &old[i]);
}

void sig_restore(const int *sigs, size_t n, const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < n; i++)
		sigaction(sigs[i], &old[i], NULL);
}
