/* SPDX-License-Identifier: MIT */
/*
 * nvtx_app.c - an NVTX-annotated program for the injection tests (NVTX v3 is
 * header-only; the ranges reach libgpuprof-inject.so through
 * NVTX_INJECTION64_PATH). Prints "hello" and exits 3, so the tests can check
 * that output and exit code pass through.
 *
 * usage: nvtx_app [exit | kill | fork]
 *   exit: three outer ranges with an inner one each, a mark, a range whose
 *         name is not UTF-8, a start/end
 *         range, a range in domain "mydomain" interleaved with one
 *         "around" of the default domain (NVTX: a push/pop stack per thread
 *         per domain; exits 4 if the levels the tool returns say otherwise);
 *         then exits 3
 *   kill: the same, then waits for the tracer's periodic write and dies of SIGKILL
 *   fork: the same, and a forked child that annotates too (it must not be captured)
 */
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit";
	nvtxDomainHandle_t d = nvtxDomainCreateA("mydomain");
	nvtxEventAttributes_t a;
	nvtxRangeId_t id;
	int lv[4];

	for (int i = 0; i < 3; i++) {
		nvtxRangePushA("outer");
		nvtxRangePushA("inner");
		nvtxRangePop();
		nvtxRangePop();
	}
	nvtxMarkA("a mark");
	nvtxRangePushA("bad \xff name"); /* not UTF-8: the reports show U+FFFD */
	nvtxRangePop();
	id = nvtxRangeStartA("startend");
	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "dom range";
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff00u;
	lv[0] = nvtxRangePushA("around");
	lv[1] = nvtxDomainRangePushEx(d, &a); /* level 0 of its own domain */
	lv[2] = nvtxRangePop();               /* ends "around" */
	lv[3] = nvtxDomainRangePop(d);
	nvtxRangeEnd(id);
	/* without a tool NVTX returns -2 (no push/pop tracking) */
	if (lv[0] != -2 && (lv[0] || lv[1] || lv[2] || lv[3])) {
		fprintf(stderr, "nvtx_app: push/pop levels %d %d %d %d, expected 0 0 0 0\n", lv[0],
		        lv[1], lv[2], lv[3]);
		return 4;
	}
	if (strcmp(mode, "fork") == 0) {
		pid_t p = fork();

		if (p == 0) {
			nvtxRangePushA("in the child");
			nvtxRangePop();
			_exit(0);
		}
		waitpid(p, NULL, 0);
	}
	printf("hello\n");
	fflush(stdout);
	if (strcmp(mode, "kill") == 0) {
		nvtxRangePushA("never closed");
		usleep(1500 * 1000); /* three periodic writes of the tracer (500 ms) */
		raise(SIGKILL);
	}
	return 3;
}
