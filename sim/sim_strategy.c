/* The strategies by name (sim_strategy.h). */
#include "sim_strategy.h"

const struct sim_strategy *sim_strategy_find(const char *name)
{
	static const struct sim_strategy *const all[] = { &sim_strategy_giant, &sim_strategy_chunk,
							   &sim_strategy_seq };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}
