// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the lists every cause and counter of smbdirect derives from
 * (<smbdirect/pdu_verdicts.h>, smbdirect/causes.h, smbdirect/stats.h).
 * Every entry must have a well-formed name, unique in its kind, and every
 * cause a description, so debugfs, the tracepoints and the logs never
 * print "unknown" for a value the module can produce. Pure: the tables are
 * read through the module's name functions; no device is needed.
 */

#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/string.h>
#include <smbdirect/ns.h>

#include "smbd.h"

MODULE_IMPORT_NS(SMBDX_NS_NAME(EXPORTED_FOR_KUNIT_TESTING));

/* A name for debugfs "key value" lines: [a-z][a-z0-9_]*, not "unknown". */
static bool tables_name_ok(const char *s)
{
	if (!s || !islower(*s) || !strcmp(s, "unknown"))
		return false;
	for (; *s; s++)
		if (!islower(*s) && !isdigit(*s) && *s != '_')
			return false;
	return true;
}

static void tables_verdicts(struct kunit *test)
{
	/* The list read again here: same order, same names. */
	static const struct {
		enum smbdx_verdict v;
		const char *name;
		const char *rule;
	} list[] = {
#define SMBDX_VERDICT(id, ...) { SMBDX_ERR_##id, __VA_ARGS__ },
#include <smbdirect/pdu_verdicts.h>
#undef SMBDX_VERDICT
	};
	unsigned int v;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(list) + 1, (size_t)SMBDX_VERDICT_COUNT);
	for (v = 0; v < ARRAY_SIZE(list); v++)
		KUNIT_EXPECT_EQ(test, list[v].v, v + 1);
	KUNIT_EXPECT_STREQ(test, smbdx_verdict_name(SMBDX_OK), "ok");
	for (v = 1; v < SMBDX_VERDICT_COUNT; v++) {
		const char *rule = smbdx_verdict_str(v);

		KUNIT_EXPECT_TRUE_MSG(test, tables_name_ok(smbdx_verdict_name(v)),
				      "verdict %u name", v);
		KUNIT_EXPECT_STREQ(test, smbdx_verdict_name(v), list[v - 1].name);
		KUNIT_EXPECT_STREQ(test, rule, list[v - 1].rule);
		/* The transport counts a verdict under the same name. */
		KUNIT_EXPECT_STREQ(test, smbdx_cause_name(v), smbdx_verdict_name(v));
		/* A rule names its section, or says it is the caller's. */
		KUNIT_EXPECT_TRUE_MSG(test, isdigit(rule[0]) ||
				      !strncmp(rule, "local: ", 7) ||
				      !strncmp(rule, "appendix ", 9),
				      "verdict %s: rule \"%s\"",
				      smbdx_verdict_name(v), rule);
		KUNIT_EXPECT_STREQ(test, smbdx_cause_str(v), rule);
	}
	KUNIT_EXPECT_STREQ(test, smbdx_verdict_name(SMBDX_VERDICT_COUNT), "unknown");
}

static void tables_causes(struct kunit *test)
{
	int c, d;

	KUNIT_EXPECT_STREQ(test, smbdx_cause_name(SMBDX_CAUSE_NONE), "none");
	for (c = SMBDX_VERDICT_COUNT; c < SMBDX_CAUSE_COUNT; c++) {
		KUNIT_EXPECT_TRUE_MSG(test, tables_name_ok(smbdx_cause_name(c)),
				      "cause %d name", c);
		KUNIT_EXPECT_GT_MSG(test, strlen(smbdx_cause_str(c)), (size_t)10,
				    "cause %s has no description",
				    smbdx_cause_name(c));
		KUNIT_EXPECT_STRNEQ(test, smbdx_cause_str(c), "none");
	}
	/* Names are unique over verdicts and transport causes together. */
	for (c = 0; c < SMBDX_CAUSE_COUNT; c++)
		for (d = 0; d < c; d++)
			KUNIT_EXPECT_STRNEQ(test, smbdx_cause_name(c),
					    smbdx_cause_name(d));
	KUNIT_EXPECT_STREQ(test, smbdx_cause_name(SMBDX_CAUSE_COUNT), "unknown");
	KUNIT_EXPECT_STREQ(test, smbdx_cause_name(-1), "unknown");
}

static void tables_stats(struct kunit *test)
{
	unsigned int s, t;

	for (s = 0; s < SMBDX_STAT_COUNT; s++) {
		KUNIT_EXPECT_TRUE_MSG(test, tables_name_ok(smbdx_stat_name(s)),
				      "counter %u name", s);
		for (t = 0; t < s; t++)
			KUNIT_EXPECT_STRNEQ(test, smbdx_stat_name(s),
					    smbdx_stat_name(t));
	}
	KUNIT_EXPECT_STREQ(test, smbdx_stat_name(SMBDX_STAT_COUNT), "unknown");
}

static struct kunit_case tables_cases[] = {
	KUNIT_CASE(tables_verdicts),
	KUNIT_CASE(tables_causes),
	KUNIT_CASE(tables_stats),
	{}
};

static struct kunit_suite tables_suite = {
	.name = "smbdirect_tables",
	.test_cases = tables_cases,
};

kunit_test_suite(tables_suite);

MODULE_DESCRIPTION("KUnit tests for smbdirect's cause and counter tables");
MODULE_LICENSE("GPL");
