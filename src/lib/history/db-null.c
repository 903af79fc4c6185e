/* SPDX-License-Identifier: MIT */
/*
 * db-null.c - the statement runner and closer of a backend built without
 * its library's header (db-sqlite.c without libsqlite3-dev, db-pg.c
 * without libpq-dev): its open says why and fails, so these never see a
 * database; they are here so that both backends share them.
 */
#include "history-int.h"

int gp__hdb_null_exec(struct gp__hdb *db, const char *sql, size_t nparam, const char *const *params,
                      gp__hdb_row_fn fn, void *user)
{
	(void)db, (void)sql, (void)nparam, (void)params, (void)fn, (void)user;
	return GP_ENOTSUP;
}

void gp__hdb_null_close(struct gp__hdb *db)
{
	(void)db;
}
