// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - run a libFuzzer harness over corpus files without libFuzzer,
 * so that `make check` needs only gcc (make fuzz-corpus, fuzz.mk).
 *
 *   replay FILE|DIR...
 *
 * Calls LLVMFuzzerInitialize() (when the harness has one) and then
 * LLVMFuzzerTestOneInput() on every file named, and on every regular file
 * of every directory named (in name order, so a run is reproducible).
 * A failing input aborts inside the harness (fuzz.mk runs this with the
 * sanitizers' abort_on_error=1); the SIGABRT handler names it.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long ninputs;
static size_t nbytes;
static const char *cur_path;	/* the input being run */

static void on_fatal(int sig)
{
	static const char msg[] = "replay: failing input: ";

	if (cur_path && write(2, msg, sizeof(msg) - 1) > 0 &&
	    write(2, cur_path, strlen(cur_path)) > 0)
		(void)!write(2, "\n", 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int run_file(const char *path)
{
	uint8_t *buf;
	FILE *f;
	long n;

	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		perror(path);
		if (f)
			fclose(f);
		return 1;
	}
	/* A copy of exactly the input's size: ASan sees any over-read. */
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		perror(path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	cur_path = path;
	LLVMFuzzerTestOneInput(buf, n);
	cur_path = NULL;
	free(buf);
	ninputs++;
	nbytes += n;
	return 0;
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_dir(const char *dir)
{
	struct dirent **names;
	int i, n, bad = 0;

	n = scandir(dir, &names, NULL, cmp_names);
	if (n < 0) {
		perror(dir);
		return 1;
	}
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && !stat(path, &st) &&
		    S_ISREG(st.st_mode))
			bad |= run_file(path);
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	signal(SIGABRT, on_fatal);
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			bad |= run_dir(argv[i]);
		} else {
			bad |= run_file(argv[i]);
		}
	}
	printf("replay %s: %lu inputs, %zu bytes%s\n", argv[0], ninputs,
	       nbytes, bad ? ", FAILED" : ", all passed");
	return bad;
}
