/* SPDX-License-Identifier: MIT */
/*
 * nvtx_app.c - an NVTX-annotated program for the injection tests (NVTX v3 is
 * header-only; the ranges reach libgpuprof-inject.so through
 * NVTX_INJECTION64_PATH). Prints "hello" and exits 3, so the tests can check
 * that output and exit code pass through.
 *
 * usage: nvtx_app [exit | kill | fork]
 *   exit: three outer ranges with an inner one each, a mark, a start/end
 *         range, a range in domain "mydomain"; then exits 3
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

	for (int i = 0; i < 3; i++) {
		nvtxRangePushA("outer");
		nvtxRangePushA("inner");
		nvtxRangePop();
		nvtxRangePop();
	}
	nvtxMarkA("a mark");
	id = nvtxRangeStartA("startend");
	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "dom range";
	a.colorType = NVTX_COLOR_ARGB;
	a.color = 0xff00ff00u;
	nvtxDomainRangePushEx(d, &a);
	nvtxDomainRangePop(d);
	nvtxRangeEnd(id);
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
