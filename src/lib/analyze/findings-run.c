/* SPDX-License-Identifier: MIT */
/*
 * findings-run.c - the entry point of the findings: gp__an_findings() runs
 * last (it reads the sections the other analyses wrote), applies the rules
 * of gp__fnd_rules[] (findings-rules.c) to a list (findings.c) and writes
 * r["findings"]. Apart from findings.c, so that the list's helpers, which
 * every rule file calls, call nothing back (tests/check-cycles.py).
 */
#include "findings.h"
#include "util/error.h"

int gp__an_findings(const struct gp__actx *c, struct gp_value *r)
{
	struct gp__fnd_list fl = { NULL, 0, 0 };
	struct gp_value *list = NULL;
	struct gp__fnd_base b;
	size_t k;
	int rc = 0;

	GP_TRY(gp__fnd_base_init(c, r, &b));
	for (k = 0; k < gp__fnd_nrules; k++)
		GP_TRY(gp__fnd_rules[k](c, r, &b, &fl));
	GP_TRY(gp__fnd_list_take(&fl, &list));
	rc = gp_obj_set(r, "findings", list);
	list = NULL;
out:
	gp_value_free(list);
	for (k = 0; k < fl.n; k++)
		gp_value_free(fl.v[k].v);
	gp__free(fl.v);
	return rc;
}
