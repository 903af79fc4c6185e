/* SPDX-License-Identifier: MIT */
/*
 * gpuprof.c - PROVISIONAL main until the CLI lands.
 */
#include <stdio.h>

#include "gpuprof/gpuprof.h"

int main(void)
{
	printf("gpuprof %s\n", gp_version());
	return 0;
}
