// SPDX-License-Identifier: GPL-2.0
/*
 * The names and descriptions of the causes of a connection's termination
 * (debugfs "errors", the netlink reports of ctl.c, tracepoints, logs): the
 * transport's own causes from the single list of causes.h, the protocol
 * verdicts from the pure codec (pdu.c).
 *
 * This file is part of the floor of smbdirect.ko (Documentation/design.rst
 * "Files"): any file may call it, and it calls nothing of smbdirect but
 * the pure protocol engine (smbdx_verdict_name(), smbdx_verdict_str()).
 *
 * Concurrency: none. The tables are constant and the functions only look
 * them up, in any context.
 */

#include <kunit/visibility.h>

#include "smbd.h"

/* SMBDX_CAUSE_<ID> is entry <ID> - SMBDX_VERDICT_COUNT. */
static const struct smbdx_cause_info {
	enum smbdx_cause c;
	const char *name;
	const char *text;
} smbdx_causes[] = {
#define SMBDX_CAUSE(id, ...) { SMBDX_CAUSE_##id, __VA_ARGS__ },
#include "causes.h"
#undef SMBDX_CAUSE
};

static_assert(ARRAY_SIZE(smbdx_causes) == SMBDX_CAUSE_COUNT - SMBDX_VERDICT_COUNT);

/**
 * smbdx_cause_name() - short name of a termination cause (debugfs)
 * @cause: SMBDX_CAUSE_* or protocol verdict
 *
 * Return: a static string.
 */
const char *smbdx_cause_name(int cause)
{
	if (cause == SMBDX_CAUSE_NONE)
		return "none";
	if (cause > 0 && cause < SMBDX_VERDICT_COUNT)
		return smbdx_verdict_name(cause);
	if (cause < 0 || cause >= SMBDX_CAUSE_COUNT)
		return "unknown";
	return smbdx_causes[cause - SMBDX_VERDICT_COUNT].name;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_cause_name);

/**
 * smbdx_cause_str() - one-line description of a termination cause
 * @cause: SMBDX_CAUSE_* or protocol verdict
 *
 * Return: the rule the peer broke (with its MS-SMBD section) for a
 * protocol verdict, else what happened.
 */
const char *smbdx_cause_str(int cause)
{
	if (cause > 0 && cause < SMBDX_VERDICT_COUNT)
		return smbdx_verdict_str(cause);
	if (cause < SMBDX_VERDICT_COUNT || cause >= SMBDX_CAUSE_COUNT)
		return "none";
	return smbdx_causes[cause - SMBDX_VERDICT_COUNT].text;
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_cause_str);
