/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smbd_test.ko's private header: the state its files share and the
 * functions they call across files. Not part of smbdirect's API.
 *
 *   main.c     module init/exit, debugfs files, command parser, result text
 *   service.c  echo/sink listeners, named clients, their commands
 *   smb2.c     SMB2 interop: what server connections saw, negotiate
 *   bench.c    ping and stream (the benchmark's commands)
 *   raw.c      raw listeners: bare RDMA CM, a silent or broken SMB Direct
 *              server for the client's tests
 *   rawc.c     raw clients: bare RDMA CM, a hostile SMB Direct client for
 *              the server's tests
 *
 * Locking (the whole module): svc_mutex serialises commands, the status
 * file and the reaper; commands may sleep for as long as a run takes.
 * svc_lock (a spinlock, taken with _bh) protects each listener's list of
 * server connections, which the accept callback extends from smbdirect's
 * workqueue, and the first bytes recorded in struct svc_interop_seen.
 * smbdirect's callbacks never take svc_mutex: smbdx_listener_destroy() and
 * smbdx_destroy(), called with it held, wait for them.
 */
#ifndef SMBD_TEST_H
#define SMBD_TEST_H

#include <linux/atomic.h>
#include <linux/compiler_attributes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <smbdirect/smbdirect.h>

struct seq_file;

#define SMBDX_TEST_WAIT_MS	30000

enum smbdx_test_mode { SMBDX_TEST_ECHO, SMBDX_TEST_SINK };

/* SMB2 interop: options, and what server connections and listeners saw */
#define SVC_FIRST_MAX	16

struct svc_interop_args {
	u32 hangup;			/* listeners: disconnect after N messages */
	bool refuse;			/* sinks: answer SMB2 with an error */
	u32 timeout_ms;			/* negotiate: wait for the response */
	bool smb311;			/* negotiate: offer 3.1.1 too */
	u32 xform;			/* negotiate: SVC_XFORM_* context */
};

/*
 * negotiate's xform=N: the SMB2_RDMA_TRANSFORM_CAPABILITIES context it
 * adds to a 3.1.1 request (MS-SMB2 2.2.3.1.6)
 */
enum {
	SVC_XFORM_OFF,		/* none */
	SVC_XFORM_BOTH,		/* valid: ENCRYPTION and SIGNING */
	SVC_XFORM_ZERO,		/* TransformCount 0 */
	SVC_XFORM_SHORT,	/* DataLength 2 */
	SVC_XFORM_UNKNOWN,	/* valid, but only IDs that are not defined */
	SVC_XFORM_SIGNING,	/* valid: SIGNING alone */
	SVC_XFORM_MAX = SVC_XFORM_SIGNING,
};

struct svc_interop_seen {
	atomic64_t smb2;		/* messages beginning with an SMB2 header */
	u8 first[SVC_FIRST_MAX];	/* set once, under svc_lock */
	u8 first_len;			/* 0: nothing yet; set once, under svc_lock */
};

struct smbdx_test_listener {
	struct list_head list;
	struct smbdx_listener *lis;
	enum smbdx_test_mode mode;
	struct sockaddr_storage addr;
	int port;
	struct list_head conns;		/* under svc_lock */
	atomic64_t accepted;
	struct svc_interop_seen seen;	/* totals over all its connections */
	u32 hangup;
	bool refuse;
};

struct smbdx_test_sconn {
	struct list_head list;
	struct smbdx_test_listener *tl;
	struct smbdx_conn *conn;
	atomic64_t msgs;
	atomic64_t bytes;
	atomic64_t echo_errors;
	struct svc_interop_seen seen;
};

struct smbdx_test_client {
	struct list_head list;
	char name[32];
	struct smbdx_conn *conn;
	struct sockaddr_storage addr;
	wait_queue_head_t wq;
	atomic64_t sent;
	atomic64_t received;
	atomic64_t verified;
	atomic64_t mismatched;
	u32 expect_size;		/* of the echoes of the current send */
	bool verify;
};

/* A command's address, port and options, as svc_parse() leaves them. */
struct svc_args {
	struct sockaddr_storage addr;
	struct smbdx_conn_config cfg;
	u32 count;
	u32 size;
	bool verify;
	struct svc_interop_args interop;
};

extern struct mutex svc_mutex;
extern spinlock_t svc_lock;
extern struct list_head svc_listeners;	/* under svc_mutex */
extern struct list_head svc_clients;	/* under svc_mutex */
extern const struct smbdx_conn_ops svc_client_ops;

/* Byte @i of the @seed-th message on a connection (Documentation/api.rst). */
static inline u8 svc_byte(u64 seed, u32 i)
{
	return (seed * 131 + i * 7 + (i >> 8) + (i >> 16)) & 0xff;
}

/* main.c */
void svc_printf(const char *fmt, ...) __printf(1, 2);
int svc_parse_addr(const char *s, const char *port, struct sockaddr_storage *ss);
int svc_parse_opt(char *tok, struct svc_args *a);
int svc_parse(int argc, char **argv, struct svc_args *a);

/* service.c */
void svc_print_info(struct smbdx_conn *conn);
bool svc_addr_eq(const struct sockaddr_storage *a,
		 const struct sockaddr_storage *b, bool port);
bool svc_echoes_done(struct smbdx_test_client *cl, u64 want);
int svc_listen(int argc, char **argv);
int svc_unlisten(int argc, char **argv);
int svc_open(const char *name, struct svc_args *a,
	     struct smbdx_test_client **clp);
int svc_cmd_send(int argc, char **argv);
int svc_close(int argc, char **argv);
int svc_run(int argc, char **argv);
void svc_stop_all(void);
void svc_orphan_all(void);

/* smb2.c */
void svc_interop_recv(struct smbdx_test_sconn *sc, struct smbdx_msg *msg);
void svc_interop_show(struct seq_file *m, struct svc_interop_seen *seen);
bool svc_interop_opt(const char *key, u32 v, struct svc_interop_args *ia);
int svc_negotiate(int argc, char **argv);
u32 svc_smb2_negotiate_build(u8 *buf);

/* bench.c */
int svc_bench_command(int argc, char **argv);

/* raw.c */
int svc_raw_listen(int argc, char **argv);
int svc_raw_unlisten(const struct sockaddr_storage *ss, u16 port);
void svc_raw_show(struct seq_file *m);
void svc_raw_stop_all(void);

/* rawc.c */
int svc_rawc_command(int argc, char **argv);
void svc_rawc_show(struct seq_file *m);
void svc_rawc_stop_all(void);

#endif /* SMBD_TEST_H */
