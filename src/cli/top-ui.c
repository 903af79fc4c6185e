/* SPDX-License-Identifier: MIT */
/*
 * top-ui.c - the full-screen monitor of `gpuprof top` (ncursesw), in the
 * spirit of nvtop: per GPU, bars for utilisation and memory, a sparkline of
 * utilisation, power, temperature and clocks with the clock-event (throttle)
 * reasons; the host's CPU and memory; the processes using the GPUs.
 *
 * Keys: q (or Esc) quits, p or space pauses the display, s cycles the
 * process sort (memory, SM, pid). It fits 80x24 and redraws on resize; the
 * terminal is restored on q, SIGINT, SIGTERM and SIGHUP (endwin, also from
 * an atexit handler should anything exit early).
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuprof-config.h"
#include "gpuprof/gpuprof.h"
#include "top.h"

#if GP_HAVE_CURSES
#include <curses.h>

#define SPARK_N 256 /* utilisation history per GPU */

enum sort_key { SORT_MEM, SORT_SM, SORT_PID, SORT_COUNT };
static const char *const sort_names[] = { "memory", "SM", "pid" };

struct ui {
	struct gp_sample *s;
	float spark[GP_SAMPLE_MAX_GPUS][SPARK_N];
	unsigned spark_n, spark_at;
	bool paused, utf8;
	enum sort_key sort;
	char host[128];
	const char *why;
};

static bool curses_on;

static void restore_terminal(void)
{
	if (curses_on) {
		endwin();
		curses_on = false;
	}
}

/* the library's byte format, compact for the screen's narrow columns ("1.5G", "512M") */
static void fmt_bytes(char *b, size_t n, double v)
{
	gp_format_bytes(v, GP_FORMAT_COMPACT, b, n);
}

/* [|||||     ] 42% in @p w columns */
static void bar(int y, int x, int w, double ratio, const char *label, const char *right)
{
	int inner = w - 2 - (int)strlen(label), fill;

	if (inner < 4)
		inner = 4;
	if (!(ratio >= 0))
		ratio = 0;
	if (ratio > 1)
		ratio = 1;
	fill = (int)(ratio * inner + 0.5);
	mvprintw(y, x, "%s[", label);
	attron(A_BOLD);
	for (int i = 0; i < inner; i++)
		addch(i < fill ? '|' : ' ');
	attroff(A_BOLD);
	addch(']');
	if (right && *right) {
		int rx = x + (int)strlen(label) + 1 + inner - (int)strlen(right);

		if (rx > x + (int)strlen(label))
			mvprintw(y, rx, "%s", right);
	}
}

static void spark(struct ui *u, int y, int x, int w, unsigned g)
{
	static const char *const blocks[] = { " ",      "\u2581", "\u2582", "\u2583", "\u2584",
		                              "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#@";
	unsigned n = u->spark_n < (unsigned)w ? u->spark_n : (unsigned)w;

	move(y, x);
	for (unsigned i = 0; i < (unsigned)w - n; i++)
		addch(' ');
	for (unsigned i = 0; i < n; i++) {
		float v = u->spark[g][(u->spark_at + SPARK_N - n + i) % SPARK_N];
		int k = v >= 0 ? (int)(v * 8 + 0.5) : 0;

		if (k > 8)
			k = 8;
		if (u->utf8)
			addstr(blocks[k]);
		else
			addch((chtype)ascii[k]);
	}
}

static int draw_gpu(struct ui *u, int y, int cols, unsigned i)
{
	const struct gp_gpu_sample *g = &u->s->gpus[i];
	char r[96], a[32], b[32], reasons[160];
	int w = cols;

#define V(f) (g->valid & (1ULL << (f)))
	attron(A_BOLD);
	mvprintw(y, 0, "GPU %u", g->index);
	attroff(A_BOLD);
	printw(" %.40s", g->name[0] ? g->name : "(unknown)");
	if (g->status) {
		attron(A_REVERSE);
		mvprintw(y + 1, 2, "%.*s", cols - 4, g->error);
		attroff(A_REVERSE);
		return y + 2;
	}
	{
		char t[24] = "--", p[40] = "--", c[48] = "";

		if (V(GP_GF_TEMP))
			snprintf(t, sizeof(t), "%.0fC", g->temp_celsius);
		if (V(GP_GF_POWER) && V(GP_GF_POWER_LIMIT))
			snprintf(p, sizeof(p), "%.0f/%.0fW", g->power_watts, g->power_limit_watts);
		else if (V(GP_GF_POWER))
			snprintf(p, sizeof(p), "%.0fW", g->power_watts);
		if (V(GP_GF_CLOCK_SM))
			snprintf(c, sizeof(c), " SM %.0f MHz", g->clock_sm_hz / 1e6);
		if (V(GP_GF_CLOCK_MEM))
			snprintf(c + strlen(c), sizeof(c) - strlen(c), " MEM %.0f MHz",
			         g->clock_mem_hz / 1e6);
		mvprintw(y, cols > 80 ? cols - 44 : 36, "%6s %10s%s", t, p, c);
	}
	y++;
	snprintf(r, sizeof(r), "%3.0f%%", V(GP_GF_UTIL_GPU) ? g->util_gpu * 100 : 0);
	bar(y, 0, w / 2 - 1, V(GP_GF_UTIL_GPU) ? g->util_gpu : 0, " GPU ",
	    V(GP_GF_UTIL_GPU) ? r : "--");
	if (V(GP_GF_MEM_USED) && V(GP_GF_MEM_TOTAL) && g->mem_total_bytes) {
		fmt_bytes(a, sizeof(a), (double)g->mem_used_bytes);
		fmt_bytes(b, sizeof(b), (double)g->mem_total_bytes);
		snprintf(r, sizeof(r), "%s/%s", a, b);
		bar(y, w / 2, w - w / 2, (double)g->mem_used_bytes / (double)g->mem_total_bytes,
		    "MEM ", r);
	} else {
		bar(y, w / 2, w - w / 2, 0, "MEM ", "--");
	}
	y++;
	mvprintw(y, 1, "util ");
	spark(u, y, 6, cols / 2 - 7, i);
	reasons[0] = 0;
	if (V(GP_GF_CLOCK_REASONS))
		gp_clock_reasons_str(g->clock_event_reasons & ~1ULL, ",", reasons, sizeof(reasons));
	mvprintw(y, cols / 2, "throttle: %.*s", cols / 2 - 11,
	         !V(GP_GF_CLOCK_REASONS) ? "--"
	         : reasons[0]            ? reasons
	                                 : "none");
#undef V
	return y + 1;
}

static int draw_host(struct ui *u, int y, int cols)
{
	const struct gp_host_sample *h = &u->s->host;
	char r[64], a[32], b[32];

	if (h->valid & (1ULL << GP_HF_CPU_BUSY)) {
		snprintf(r, sizeof(r), "%3.0f%% of %u", h->cpu_busy * 100, h->ncpus_all);
		bar(y, 0, cols / 2 - 1, h->cpu_busy, " CPU ", r);
	} else {
		bar(y, 0, cols / 2 - 1, 0, " CPU ", "--");
	}
	if (h->valid & (1ULL << GP_HF_MEM)) {
		double used =
		    (double)(h->mem_total_bytes - (h->mem_available_bytes < h->mem_total_bytes
		                                       ? h->mem_available_bytes
		                                       : h->mem_total_bytes));

		fmt_bytes(a, sizeof(a), used);
		fmt_bytes(b, sizeof(b), (double)h->mem_total_bytes);
		snprintf(r, sizeof(r), "%s/%s", a, b);
		bar(y, cols / 2, cols - cols / 2,
		    h->mem_total_bytes ? used / h->mem_total_bytes : 0, "MEM ", r);
	}
	y++;
	if (h->valid & (1ULL << GP_HF_LOAD))
		mvprintw(y, 1, "load %.2f %.2f %.2f", h->load1, h->load5, h->load15);
	if (h->proc_pid > 0) {
		char rss[32] = "--";

		if (h->valid & (1ULL << GP_HF_PROC_RSS))
			fmt_bytes(rss, sizeof(rss), (double)h->proc_rss_bytes);
		if (h->valid & (1ULL << GP_HF_PROC_CPU))
			mvprintw(y, cols / 2, "pid %d: %u procs, CPU %.0f%%, RSS %s",
			         (int)h->proc_pid, h->proc_count, h->proc_cpu * 100, rss);
		else
			mvprintw(y, cols / 2, "pid %d: RSS %s", (int)h->proc_pid, rss);
	}
	return y + 1;
}

struct prow {
	unsigned gpu;
	const struct gp_gpu_proc *p;
};

static enum sort_key g_sort;

static int cmp_prow(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	switch (g_sort) {
	case SORT_MEM:
		if (x->p->mem_bytes != y->p->mem_bytes)
			return x->p->mem_bytes < y->p->mem_bytes ? 1 : -1;
		break;
	case SORT_SM:
		if (x->p->util_sm != y->p->util_sm)
			return x->p->util_sm < y->p->util_sm ? 1 : -1;
		break;
	default:
		break;
	}
	return x->p->pid < y->p->pid ? -1 : x->p->pid > y->p->pid;
}

static void comm_of(unsigned pid, char *b, size_t n)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	b[0] = 0;
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(b, (int)n, f))
		b[0] = 0;
	fclose(f);
	b[strcspn(b, "\n")] = 0;
}

static void draw_procs(struct ui *u, int y, int rows, int cols)
{
	struct prow rows_v[GP_SAMPLE_MAX_GPUS * GP_SAMPLE_MAX_PROCS];
	size_t n = 0;

	for (unsigned i = 0; i < u->s->ngpus; i++)
		for (unsigned k = 0; k < u->s->gpus[i].nprocs; k++)
			rows_v[n++] = (struct prow){ i, &u->s->gpus[i].procs[k] };
	g_sort = u->sort;
	qsort(rows_v, n, sizeof(rows_v[0]), cmp_prow);
	attron(A_REVERSE);
	mvprintw(y, 0, "%-*s", cols, "    PID  GPU      MEM    SM  COMMAND");
	mvprintw(y, cols - 18 > 0 ? cols - 18 : 0, "sort: %s", sort_names[u->sort]);
	attroff(A_REVERSE);
	y++;
	if (!n && y < rows)
		mvprintw(y, 1, u->s->ngpus ? "no process is using a GPU" : "");
	for (size_t i = 0; i < n && y < rows; i++, y++) {
		char mem[32] = "--", sm[16] = "--", comm[64];

		if (rows_v[i].p->mem_valid)
			fmt_bytes(mem, sizeof(mem), (double)rows_v[i].p->mem_bytes);
		if (rows_v[i].p->util_valid)
			snprintf(sm, sizeof(sm), "%.0f%%", rows_v[i].p->util_sm * 100);
		comm_of(rows_v[i].p->pid, comm, sizeof(comm));
		mvprintw(y, 0, "%7u  %3u  %7s  %4s  %.*s", rows_v[i].p->pid,
		         u->s->gpus[rows_v[i].gpu].index, mem, sm, cols > 34 ? cols - 34 : 0, comm);
	}
}

static void draw(struct ui *u)
{
	int rows, cols, y = 1;
	time_t now = time(NULL);
	struct tm tm;
	char clock[16];

	getmaxyx(stdscr, rows, cols);
	erase();
	localtime_r(&now, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	attron(A_REVERSE);
	mvprintw(0, 0, "%-*s", cols, "");
	mvprintw(0, 0, " gpuprof top  %.30s  %s%s", u->host, clock, u->paused ? "  PAUSED" : "");
	if (cols > 60)
		mvprintw(0, cols - 26, "q quit  p pause  s sort ");
	attroff(A_REVERSE);
	if (cols < 40 || rows < 8) {
		mvprintw(1, 0, "terminal too small");
		refresh();
		return;
	}
	for (unsigned i = 0; i < u->s->ngpus && y + 3 < rows; i++)
		y = draw_gpu(u, y, cols, i);
	if (!u->s->ngpus) {
		attron(A_BOLD);
		mvprintw(y++, 1, "No GPU shown: %.*s", cols - 16, u->why ? u->why : "none found");
		attroff(A_BOLD);
	}
	if (y + 2 < rows)
		y = draw_host(u, y, cols);
	if (y + 1 < rows)
		draw_procs(u, y, rows, cols);
	refresh();
}

static void push_spark(struct ui *u)
{
	for (unsigned i = 0; i < u->s->ngpus; i++) {
		const struct gp_gpu_sample *g = &u->s->gpus[i];

		u->spark[i][u->spark_at] = (g->valid & (1ULL << GP_GF_UTIL_GPU)) && !g->status
		                               ? (float)g->util_gpu
		                               : -1.0f;
	}
	u->spark_at = (u->spark_at + 1) % SPARK_N;
	if (u->spark_n < SPARK_N)
		u->spark_n++;
}

int gp_top_ui(struct gp_sampler *s, const struct gp_top_opts *o)
{
	struct ui *u;
	const char *lang;
	uint64_t seq = 0, taken = 0;
	struct timespec ts;
	int64_t start;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return error("the full-screen monitor needs a terminal; use --json, --record or "
		             "--listen");
	u = xcalloc(1, sizeof(*u));
	u->s = xmalloc(sizeof(*u->s));
	u->s->ngpus = 0;
	u->why = gp_sampler_gpu_status(s);
	gethostname(u->host, sizeof(u->host) - 1);
	setlocale(LC_ALL, "");
	lang = setlocale(LC_CTYPE, NULL);
	u->utf8 = lang && (strstr(lang, "UTF-8") || strstr(lang, "utf8"));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	start = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;

	atexit(restore_terminal);
	if (!initscr()) {
		free(u->s);
		free(u);
		return error("cannot initialise the terminal");
	}
	curses_on = true;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(100);
	gp_top_catch_signals(); /* after initscr, which installs its own */
	if (gp_sampler_latest(s, u->s) == 0) {
		seq = u->s->seq;
		push_spark(u);
	}
	draw(u);
	while (!gp_top_should_stop(o, taken, start)) {
		int ch = getch();

		if (ch == 'q' || ch == 'Q' || ch == 27)
			break;
		if (ch == 'p' || ch == 'P' || ch == ' ') {
			u->paused = !u->paused;
			draw(u);
		} else if (ch == 's' || ch == 'S') {
			u->sort = (enum sort_key)((u->sort + 1) % SORT_COUNT);
			draw(u);
		} else if (ch == KEY_RESIZE) {
			draw(u);
		}
		if (!u->paused && gp_sampler_wait(s, seq, 0, u->s) == 0) {
			seq = u->s->seq;
			taken++;
			push_spark(u);
			draw(u);
		}
	}
	restore_terminal();
	free(u->s);
	free(u);
	return 0;
}
#else
int gp_top_ui(struct gp_sampler *s, const struct gp_top_opts *o)
{
	(void)s;
	(void)o;
	return error("the full-screen monitor is not available: this gpuprof was built without "
	             "ncursesw (install libncurses-dev and rebuild); use --json, --record or "
	             "--listen");
}
#endif
