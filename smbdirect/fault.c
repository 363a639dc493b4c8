// SPDX-License-Identifier: GPL-2.0
/*
 * smbdirect's fault points (fault.h): one struct fault_attr per point,
 * each with its debugfs directory under /sys/kernel/debug/smbdirect/fault/
 * when CONFIG_FAULT_INJECTION_DEBUG_FS is set.
 *
 * Normal operation: every attribute starts with probability 0, so no point
 * fails until an administrator or a test arms it; verbose is 1 (one line
 * per injected failure, no stack trace).
 *
 * Concurrency: should_fail() may run in any context; arming a point
 * while the transport runs is what the framework is for.
 */

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/module.h>
#include <kunit/visibility.h>

#include "fault.h"

static struct fault_attr smbdx_faults[SMBDX_FAULT_COUNT] = {
	[0 ... SMBDX_FAULT_COUNT - 1] = FAULT_ATTR_INITIALIZER
};

static const char * const smbdx_fault_names[SMBDX_FAULT_COUNT] = {
	[SMBDX_FAULT_SEND_ALLOC] = "send_alloc",
	[SMBDX_FAULT_POST_SEND] = "post_send",
	[SMBDX_FAULT_POST_RECV] = "post_recv",
	[SMBDX_FAULT_MSG_ALLOC] = "msg_alloc",
	[SMBDX_FAULT_REG_ALLOC] = "reg_alloc",
	[SMBDX_FAULT_MR_POST] = "mr_post",
	[SMBDX_FAULT_MR_WC] = "mr_wc",
	[SMBDX_FAULT_RW_ALLOC] = "rw_alloc",
	[SMBDX_FAULT_RW_POST] = "rw_post",
	[SMBDX_FAULT_CM_EVENT] = "cm_event",
	[SMBDX_FAULT_XFORM_TAMPER] = "xform_tamper",
};

/**
 * smbdx_fault() - should this fault point fail now?
 * @f: the point
 *
 * Context: any.
 *
 * Return: true to make the operation fail.
 */
bool smbdx_fault(enum smbdx_fault f)
{
	return should_fail(&smbdx_faults[f], 1);
}

/**
 * smbdx_fault_name() - debugfs name of a fault point
 * @f: the point
 *
 * Return: a static string.
 */
const char *smbdx_fault_name(enum smbdx_fault f)
{
	if ((unsigned int)f >= SMBDX_FAULT_COUNT)
		return "unknown";
	return smbdx_fault_names[f];
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_fault_name);

/**
 * smbdx_fault_arm() - make a fault point fail the next @times times
 * @f: the point
 * @times: failures to inject (always, from now on), 0 to disarm
 *
 * What a test does through the point's debugfs files (probability 100,
 * interval 1, times @times), without them.
 */
void smbdx_fault_arm(enum smbdx_fault f, int times)
{
	struct fault_attr *a = &smbdx_faults[f];

	atomic_set(&a->times, 0);
	a->interval = 1;
	atomic_set(&a->space, 0);
	a->probability = times ? 100 : 0;
	atomic_set(&a->times, times);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_fault_arm);

/**
 * smbdx_fault_left() - failures a fault point has still to inject
 * @f: the point
 *
 * Return: its "times" (0 once an armed point has fired, -1 for always).
 */
int smbdx_fault_left(enum smbdx_fault f)
{
	return atomic_read(&smbdx_faults[f].times);
}
EXPORT_SYMBOL_IF_KUNIT(smbdx_fault_left);

/**
 * smbdx_fault_init() - quiet defaults and the debugfs directories
 * @root: smbdirect's debugfs directory
 */
void smbdx_fault_init(struct dentry *root)
{
	struct dentry *dir __maybe_unused;
	int i;

	for (i = 0; i < SMBDX_FAULT_COUNT; i++)
		smbdx_faults[i].verbose = 1;
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	dir = debugfs_create_dir("fault", root);
	for (i = 0; i < SMBDX_FAULT_COUNT; i++)
		fault_create_debugfs_attr(smbdx_fault_names[i], dir,
					  &smbdx_faults[i]);
#endif
}
