// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect.ko's counters: the module-wide totals (smbdx_global_stats),
 * the names debugfs prints them under (from the single list of stats.h)
 * and the two functions every file counts with, smbdx_stat_inc() and
 * smbdx_stat_add(). The cause counters (smbdx_stats.errors) are bumped by
 * connection.c and listen.c directly; their names are in causes.c.
 *
 * This file is part of the floor of smbdirect.ko (Documentation/design.rst
 * "Files"): any file may call it, and it calls nothing of smbdirect.
 *
 * Concurrency: no lock. Every counter is an atomic64_t, so the functions
 * may be called in any context (process, softirq completion handlers,
 * under conn->lock or any other lock); readers (debugfs, netlink, the
 * KUnit suites) see each counter on its own, not a snapshot of all of
 * them. The caller of smbdx_stat_inc()/smbdx_stat_add() holds a reference
 * on the connection. The name table is constant.
 */

#include <linux/atomic.h>
#include <kunit/visibility.h>

#include "smbd.h"

struct smbdx_stats smbdx_global_stats;

/* SMBDX_STAT_<ID> is entry <ID>: the list in the enum's order. */
static const struct smbdx_stat_info {
	enum smbdx_stat s;
	const char *name;
} smbdx_stats[] = {
#define SMBDX_STAT(id, ...) { SMBDX_STAT_##id, __VA_ARGS__ },
#include "stats.h"
#undef SMBDX_STAT
};

static_assert(ARRAY_SIZE(smbdx_stats) == SMBDX_STAT_COUNT);

/**
 * smbdx_stat_name() - debugfs name of a counter
 * @s: counter
 *
 * Return: a static string.
 */
const char *smbdx_stat_name(enum smbdx_stat s)
{
	if ((unsigned int)s >= SMBDX_STAT_COUNT)
		return "unknown";
	return smbdx_stats[s].name;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_stat_name);

/**
 * smbdx_stat_inc() - count one event on a connection and globally
 * @conn: connection
 * @s: counter
 */
void smbdx_stat_inc(struct smbdx_conn *conn, enum smbdx_stat s)
{
	atomic64_inc(&conn->stats.v[s]);
	atomic64_inc(&smbdx_global_stats.v[s]);
}

/**
 * smbdx_stat_add() - add to a counter of a connection and globally
 * @conn: connection
 * @s: counter
 * @n: amount
 */
void smbdx_stat_add(struct smbdx_conn *conn, enum smbdx_stat s, u64 n)
{
	atomic64_add(n, &conn->stats.v[s]);
	atomic64_add(n, &smbdx_global_stats.v[s]);
}
