#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SMB2 client for tests/vm/sqos_durable.sh, built on impacket.

Opens files on a share over TCP, each with a batch oplock and, if asked, a
durable handle v2 request (DH2Q, MS-SMB2 2.2.13.2.11) with a timeout, tags
each open with a logical flow and a policy through
FSCTL_STORAGE_QOS_CONTROL (MS-SQOS 2.2.2.2) and checks the answer. Then it
waits until a given file exists and ends the connection without closing
anything, as a client that loses its network does. Neither the stock cifs
nor our cifs can do that with a timeout: the Linux client asks for a v2
durable handle only on a share with persistent handles, which ksmbd does
not offer, and a v1 durable handle has no timeout in ksmbd.

usage: smb2_durable.py HOST SHARE USER PASSWORD UNTIL OPEN...
    OPEN is NAME:FLOW:POLICY:TIMEOUT_MS (TIMEOUT_MS 0: no durable request)
Prints one "open NAME flow=... status=... max_rate=..." line per open and
"holding" once all are tagged; exits non-zero on any failure.
"""
import os
import struct
import sys
import time
import uuid

from impacket import smb3
from impacket import smb3structs as s

FSCTL_STORAGE_QOS_CONTROL = 0x00090350
# SET_LOGICAL_FLOW_ID | SET_POLICY | GET_STATUS
QOS_OPTIONS = 0x1 | 0x2 | 0x8
QOS_RESPONSE = struct.Struct('<HHI16s16s16sIIQQII')


def dh2q(timeout_ms):
    """A DH2Q create context: Timeout, Flags (not persistent), CreateGuid."""
    ctx = s.SMB2CreateContext()
    name = b'DH2Q'
    data = struct.pack('<II8s16s', timeout_ms, 0, b'\0' * 8,
                       uuid.uuid4().bytes_le)
    ctx['Next'] = 0
    ctx['NameOffset'] = 16
    ctx['NameLength'] = len(name)
    ctx['DataOffset'] = 24
    ctx['DataLength'] = len(data)
    ctx['Buffer'] = name + b'\0' * 4 + data
    return ctx


def qos_request(flow, policy):
    """STORAGE_QOS_CONTROL_REQUEST, 112 bytes, no initiator names."""
    return struct.pack('<HHI16s16s16sQQHHHHQQQQ', 0x0100, 0, QOS_OPTIONS,
                       uuid.UUID(flow).bytes_le, uuid.UUID(policy).bytes_le,
                       uuid.uuid4().bytes_le, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def main(argv):
    if len(argv) < 7:
        sys.exit(__doc__)
    host, share, user, password, until = argv[1:6]
    conn = smb3.SMB3(host, host, preferredDialect=s.SMB2_DIALECT_302)
    conn.login(user, password)
    tid = conn.connectTree(share)
    for spec in argv[6:]:
        name, flow, policy, timeout = spec.split(':')
        ctxs = [dh2q(int(timeout))] if int(timeout) else None
        fid = conn.create(tid, name, s.FILE_READ_DATA | s.FILE_WRITE_DATA,
                          s.FILE_SHARE_READ | s.FILE_SHARE_WRITE,
                          s.FILE_NON_DIRECTORY_FILE, s.FILE_OPEN_IF, 0,
                          oplockLevel=s.SMB2_OPLOCK_LEVEL_BATCH,
                          createContexts=ctxs)
        out = conn.ioctl(tid, fid, FSCTL_STORAGE_QOS_CONTROL,
                         s.SMB2_0_IOCTL_IS_FSCTL, qos_request(flow, policy),
                         maxInputResponse=0, maxOutputResponse=88)
        if out is None or len(out) != QOS_RESPONSE.size:
            sys.exit('open %s: a %s-byte answer to the FSCTL, want 88'
                     % (name, None if out is None else len(out)))
        f = QOS_RESPONSE.unpack(out)
        print('open %s flow=%s status=%d max_rate=%d durable_ms=%s'
              % (name, uuid.UUID(bytes_le=f[3]), f[7], f[8], timeout),
              flush=True)
    print('holding', flush=True)
    while not os.path.exists(until):
        time.sleep(0.1)
    # The connection ends with the process: no CLOSE, no LOGOFF.
    conn.close_session()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
