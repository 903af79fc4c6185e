/* SPDX-License-Identifier: MIT */
/*
 * findings.c - the findings list of a rank: its entries and their ranking.
 *
 * The rules (findings-rules.c, findings-<section>.c) add to the list, and
 * gp__an_findings() (findings-run.c) writes it as r["findings"]: a
 * list of { id, severity, title, evidence, suggestion, impact_pct }, sorted
 * by severity (high, medium, low, info), then by impact_pct (the share of GPU
 * window or step time at stake) descending, then by id. A finding with less
 * than GP_FND_MIN_IMPACT_PCT at stake is left out. Rule ids and
 * thresholds are stable and documented in docs/analyses/findings.md. This
 * file calls no rule back, so the rules in files of their own make no cycle.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "util/error.h"

static const char *const sev_names[] = { "high", "medium", "low", "info" };

int gp__fnd_add(struct gp__fnd_list *fl, const char *id, enum gp__fnd_sev sev, double impact_pct,
                const char *title, struct gp_value *ev, const char *suggestion)
{
	struct gp_value *f;
	int rc = 0;

	if (isfinite(impact_pct) && impact_pct < GP_FND_MIN_IMPACT_PCT) {
		gp_value_free(ev); /* no measurable impact: not a problem to list */
		return 0;
	}
	f = gp_value_object();
	if (!f || !ev) {
		gp_value_free(f);
		gp_value_free(ev);
		return gp__error(GP_ENOMEM, "out of memory");
	}
	/* gp_obj_set() takes ev even when it fails */
	rc = gp_obj_set(f, "evidence", ev);
	ev = NULL;
	GP_TRY(rc);
	GP_TRY(gp_obj_set_str(f, "id", id));
	GP_TRY(gp_obj_set_str(f, "severity", sev_names[sev]));
	GP_TRY(gp_obj_set_str(f, "title", title));
	GP_TRY(gp_obj_set_str(f, "suggestion", suggestion));
	GP_TRY(gp_obj_set_double(f, "impact_pct", impact_pct));
	GP_TRY(gp__grow((void **)&fl->v, &fl->cap, fl->n + 1, sizeof(*fl->v)));
	fl->v[fl->n].id = id;
	fl->v[fl->n].sev = sev;
	fl->v[fl->n].impact = isfinite(impact_pct) ? impact_pct : 0.0;
	fl->v[fl->n].v = f;
	fl->n++;
	return 0;
out:
	gp_value_free(ev);
	gp_value_free(f);
	return rc;
}

static int cmp_fnd(const void *x, const void *y)
{
	const struct gp__fnd *a = x, *b = y;

	if (a->sev != b->sev)
		return a->sev < b->sev ? -1 : 1;
	if (a->impact != b->impact)
		return a->impact > b->impact ? -1 : 1;
	return strcmp(a->id, b->id);
}

int gp__fnd_list_take(struct gp__fnd_list *fl, struct gp_value **out)
{
	struct gp_value *list = gp_value_array();
	size_t k;
	int rc = 0;

	*out = NULL;
	if (!list)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	if (fl->n > 1)
		qsort(fl->v, fl->n, sizeof(*fl->v), cmp_fnd);
	for (k = 0; k < fl->n; k++) {
		struct gp_value *v = fl->v[k].v;

		fl->v[k].v = NULL;
		GP_TRY(gp_arr_push(list, v));
	}
	*out = list;
	list = NULL;
out:
	gp_value_free(list);
	for (k = 0; k < fl->n; k++)
		gp_value_free(fl->v[k].v);
	gp__free(fl->v);
	memset(fl, 0, sizeof(*fl));
	return rc;
}
