// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe.c: a QEMU TCG plugin that only reports the plugin API versions the
 * running QEMU accepts. fetch-header builds it against a freshly fetched
 * qemu-plugin.h and loads it once: QEMU refuses a plugin built for an API
 * version it does not support, so a successful load proves the header
 * matches, and the printed line records the versions.
 *
 * Argument: outfile=PATH (required). Writes one line:
 *   api_min=<n> api_cur=<n> api_header=<n> target=<name> system=<0|1>
 */
#include <stdio.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	FILE *f;
	int i;

	(void)id;
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "outfile=", 8) == 0)
			path = argv[i] + 8;
	}
	if (!path) {
		fprintf(stderr, "probe: outfile=PATH is required\n");
		return 1;
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "api_min=%d api_cur=%d api_header=%d target=%s system=%d\n",
		info->version.min, info->version.cur, QEMU_PLUGIN_VERSION,
		info->target_name, info->system_emulation ? 1 : 0);
	if (fclose(f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}
