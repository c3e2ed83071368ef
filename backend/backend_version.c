/* Keeps libbackend.a non-empty while its modules are being written. */
#include "common.h"
#include "backend.h"

const char *backend_version(void)
{
	return PACKAGE_VERSION;
}
