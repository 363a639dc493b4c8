// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module init/exit of sqos.ko, its module parameters, and its one
 * way in for other modules: sqos_get_ops(), the table of the entry points
 * an SMB server or client needs (Documentation/api.rst, "sqos.ko: one
 * table"). The entry points that act on the module's own Storage QoS
 * server (sqos_enabled(), sqos_open_alloc()) are here too.
 *
 * Locking: sqos_global is set once in sqos_init() before anything can use
 * it and cleared in sqos_exit() after every user is gone (a module bound
 * through sqos_get_ops() holds a reference on sqos.ko, a KUnit suite that
 * calls the functions by name depends on it, so both are gone first).
 * Everything else is locked by flow.c and policy.c; the run-time settings
 * (configfs.c) are single words read with READ_ONCE().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <kunit/visibility.h>
#include "sqos_internal.h"

static bool enable = true;
module_param(enable, bool, 0444);
MODULE_PARM_DESC(enable, "Support Storage QoS at load (configfs sqos/enabled changes it later)");

static bool enforce = true;
module_param(enforce, bool, 0444);
MODULE_PARM_DESC(enforce, "Delay I/O to hold flows to their MaximumIoRate (configfs sqos/enforce changes it later)");

static uint ttl_ms = 4000;
module_param(ttl_ms, uint, 0444);
MODULE_PARM_DESC(ttl_ms, "TimeToLive returned with the flow status, in ms (default 4000)");

static uint window_ms = 1000;
module_param(window_ms, uint, 0444);
MODULE_PARM_DESC(window_ms, "Completion accounting window for MinimumIoRate, in ms (default 1000)");

static uint burst_ms = 250;
module_param(burst_ms, uint, 0444);
MODULE_PARM_DESC(burst_ms, "Burst an idle flow may send at once, in ms of its MaximumIoRate (default 250)");

static ulong capacity_iops;
module_param(capacity_iops, ulong, 0444);
MODULE_PARM_DESC(capacity_iops, "Normalized IOPS the storage can guarantee; 0 = unknown (default)");

static uint max_delay_ms = SQOS_DEFAULT_MAX_DELAY_MS;
module_param(max_delay_ms, uint, 0444);
MODULE_PARM_DESC(max_delay_ms, "Longest delay of an I/O, in ms, 1..3600000 (default 10000; configfs sqos/max_delay_ms changes it later)");

static uint max_held_flow = SQOS_DEFAULT_MAX_HELD_FLOW;
module_param(max_held_flow, uint, 0444);
MODULE_PARM_DESC(max_held_flow, "Delayed I/Os one flow may have at once; more go undelayed (default 256; configfs sqos/max_held_flow changes it later)");

static uint max_held = SQOS_DEFAULT_MAX_HELD;
module_param(max_held, uint, 0444);
MODULE_PARM_DESC(max_held, "Delayed I/Os all flows may have at once; more go undelayed (default 1024; configfs sqos/max_held changes it later)");

/*
 * sqos_global - the module's own Storage QoS server, which configfs, debugfs
 * and the table's entry points act on. Set once in sqos_init(), before
 * anything can reach it; exported for the KUnit suites only.
 */
struct sqos_server *sqos_global;
EXPORT_SYMBOL_IF_KUNIT(sqos_global);

/**
 * sqos_enabled() - is Storage QoS supported right now
 *
 * An SMB server that finds it disabled answers FSCTL_STORAGE_QOS_CONTROL
 * as it would without sqos.ko (our ksmbd build: STATUS_NOT_SUPPORTED) and
 * need not allocate per-open state; sqos_control() itself answers
 * STATUS_INVALID_DEVICE_REQUEST then.
 *
 * Context: any context.
 * Return: the configfs (or module parameter) setting ``enabled``.
 */
bool sqos_enabled(void)
{
	return READ_ONCE(sqos_global->enabled);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_enabled);

/**
 * sqos_open_alloc() - allocate per-open Storage QoS state
 * @gfp: allocation flags
 *
 * Call when an SMB open is created; hand the result to sqos_control(),
 * sqos_io_admit()/sqos_io_start() and finally sqos_open_release().
 *
 * Return: the open, associated with no logical flow, or NULL.
 */
struct sqos_open *sqos_open_alloc(gfp_t gfp)
{
	return sqos_server_open_alloc(sqos_global, gfp);
}
EXPORT_SYMBOL_IF_KUNIT(sqos_open_alloc);

static const struct sqos_ops sqos_ops = {
	.enabled = sqos_enabled,
	.open_alloc = sqos_open_alloc,
	.open_release = sqos_open_release,
	.control = sqos_control,
	.io_admit = sqos_io_admit,
	.io_done = sqos_io_done,
	.request_decode = sqos_request_decode,
	.client_flow_init = sqos_client_flow_init,
	.client_build_request = sqos_client_build_request,
	.client_handle_response = sqos_client_handle_response,
	.client_timer_options = sqos_client_timer_options,
	.client_io_start = sqos_client_io_start,
	.client_io_done = sqos_client_io_done,
};

/**
 * sqos_get_ops() - the entry points of sqos.ko as a table
 *
 * The one symbol sqos.ko exports for other modules (the functions in the
 * table and the rest are exported for its KUnit suites only), so that an
 * SMB server or client can use Storage QoS without depending on sqos.ko:
 * ``get = symbol_get(sqos_get_ops)`` (or symbol_request(), which loads
 * the module first) takes a reference on sqos.ko (NULL if it is not
 * loaded), ``get()`` returns the table, and ``symbol_put(sqos_get_ops)``
 * drops the reference once nothing obtained through the table (opens,
 * flows, in-flight I/O) is left.
 *
 * Context: any context.
 * Return: the table; it lives as long as the module.
 */
const struct sqos_ops *sqos_get_ops(void)
{
	return &sqos_ops;
}
EXPORT_SYMBOL_NS_GPL(sqos_get_ops, SQOS_NS);

static int __init sqos_init(void)
{
	struct sqos_server *srv;
	int ret;

	srv = sqos_server_create();
	if (!srv)
		return -ENOMEM;
	srv->enabled = enable;
	srv->enforce = enforce;
	srv->ttl_ms = ttl_ms;
	srv->window_ms = window_ms;
	srv->burst_ms = burst_ms;
	srv->capacity_iops = capacity_iops;
	srv->max_delay_ms = clamp_t(u32, max_delay_ms, 1,
				    SQOS_MAX_DELAY_MS_LIMIT);
	srv->max_held_flow = min_t(u32, max_held_flow, SQOS_MAX_HELD_LIMIT);
	srv->max_held = min_t(u32, max_held, SQOS_MAX_HELD_LIMIT);
	sqos_global = srv;
	ret = sqos_configfs_init(srv);
	if (ret) {
		sqos_global = NULL;
		sqos_server_destroy(srv);
		return ret;
	}
	sqos_debugfs_init(srv);
	pr_info("MS-SQOS Storage QoS ready (%s)\n",
		enable ? "enabled" : "disabled");
	return 0;
}

static void __exit sqos_exit(void)
{
	sqos_debugfs_exit();
	sqos_configfs_exit();
	sqos_server_destroy(sqos_global);
	sqos_global = NULL;
	/* Flows are freed with kfree_rcu(); nothing of ours runs after this. */
}

module_init(sqos_init);
module_exit(sqos_exit);

MODULE_DESCRIPTION("MS-SQOS Storage Quality of Service");
MODULE_LICENSE("GPL");
