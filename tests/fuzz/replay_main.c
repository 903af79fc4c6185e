/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - runs a libFuzzer target over corpus files without libFuzzer,
 * so gcc builds replay the committed corpora under CTest.
 *
 * Arguments are files or directories (read one level deep). Exit 0 when every
 * input ran; 1 if a file could not be read; a crash is a crash.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return 1;
	}
	do {
		if (n == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				fprintf(stderr, "replay: out of memory reading '%s'\n", path);
				return 1;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: read error on '%s'\n", path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int run_path(const char *path, size_t *count)
{
	struct stat sb;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int bad = 0;
	DIR *d;

	if (stat(path, &sb) != 0) {
		fprintf(stderr, "replay: cannot stat '%s'\n", path);
		return 1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		++*count;
		return run_file(path);
	}
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: cannot open directory '%s'\n", path);
		return 1;
	}
	while ((de = readdir(d))) {
		char full[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		if (stat(full, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				bad = 1;
				break;
			}
			names = nn;
		}
		names[n] = strdup(full);
		if (!names[n]) {
			bad = 1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str); /* a stable order */
	for (i = 0; i < n; i++) {
		bad |= run_file(names[i]);
		++*count;
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int i, bad = 0;

	for (i = 1; i < argc; i++)
		bad |= run_path(argv[i], &count);
	fprintf(stderr, "replay: %zu inputs%s\n", count, bad ? ", some unreadable" : "");
	return bad;
}
