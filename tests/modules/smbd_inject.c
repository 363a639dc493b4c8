// SPDX-License-Identifier: GPL-2.0
/*
 * Pipeline self-test: a KUnit suite that fails or WARNs on request, so the
 * test pipeline can prove it notices both. Never loaded by a normal run: the
 * VM runner loads it only when booted with smbd.inject=fail or =warn.
 */

#include <kunit/test.h>
#include <linux/module.h>

static char *mode = "fail";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "fail: a failing expectation; warn: a kernel WARN");

static void inject_case(struct kunit *test)
{
	if (!strcmp(mode, "warn"))
		WARN(1, "smbd_inject: deliberate WARN for the pipeline self-test\n");
	else
		KUNIT_FAIL(test, "deliberate failure for the pipeline self-test");
}

static struct kunit_case inject_cases[] = {
	KUNIT_CASE(inject_case),
	{}
};

static struct kunit_suite inject_suite = {
	.name = "smbd_pipeline_inject",
	.test_cases = inject_cases,
};

kunit_test_suite(inject_suite);

MODULE_DESCRIPTION("smbdirect test pipeline self-test");
MODULE_LICENSE("GPL");
