#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile SMB2 client for tests/vm/sqos_smb.sh, built on impacket.

An authenticated user with an open file tags it with a logical flow of its
own limited to 1 normalized IOPS (SET_POLICY with Limit = 1, MS-SQOS
2.2.2.2) and then sends COUNT 1-byte READs on it over TCP without waiting
for any answer (each one a normalized I/O: anything up to 8 KiB is one;
one byte keeps the answers to the READs the server does not hold back
small, so that answering them costs the server next to nothing). A server that delays each READ in a worker of its own
holds one worker per READ (the N-th one for about N seconds), which is
what this client is for: the test measures another client's I/O while
these READs are outstanding.

The answers are read (and counted) by a thread of their own, so that the
server never blocks on a full socket: what is measured is the Storage
QoS delay, not a client that does not read. impacket seals every request
once the server offers encryption (our ksmbd does to a client that asks
for it), so the READs normally go encrypted (SMB2 TRANSFORM_HEADER,
AES-128-CCM): the server must decrypt a request before it can see it is a
READ to hold back. They are built here from one template (impacket would
take tens of milliseconds for each under TCG).

usage: smb2_sqos_hog.py HOST SHARE USER PASSWORD FILE FLOW COUNT UNTIL [logoff]
Prints "tagged flow=... status=... max_rate=1", then "sent COUNT" once
every READ is on the wire, then "answered N" every second. Once the file
UNTIL exists it ends the connection (no CLOSE, no LOGOFF); with "logoff"
it first sends a LOGOFF (ksmbd waits for the connection's other requests
before it answers, so the server must let the READs it holds back go at
once) and prints "logoff answered=N of M in S s" when every request has
been answered (or after 15 s). Exits non-zero on any failure before the
READs are sent.
"""
import os
import socket
import struct
import sys
import threading
import time
import uuid

from Cryptodome.Cipher import AES
from impacket import smb3
from impacket import smb3structs as s

FSCTL_STORAGE_QOS_CONTROL = 0x00090350
# SET_LOGICAL_FLOW_ID | SET_POLICY | GET_STATUS
QOS_OPTIONS = 0x1 | 0x2 | 0x8
QOS_RESPONSE = struct.Struct('<HHI16s16s16sIIQQII')
READ_SIZE = 1


def qos_request(flow, limit):
    """STORAGE_QOS_CONTROL_REQUEST, 112 bytes: NULL PolicyID, Limit."""
    return struct.pack('<HHI16s16s16sQQHHHHQQQQ', 0x0100, 0, QOS_OPTIONS,
                       uuid.UUID(flow).bytes_le, b'\0' * 16,
                       uuid.uuid4().bytes_le, limit, 0, 0, 0, 0, 0,
                       0, 0, 0, 0)


class Counter:
    """Answers read from the socket by the reader thread."""

    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def add(self):
        with self.lock:
            self.n += 1

    def get(self):
        with self.lock:
            return self.n


def seal(key, sid, plain):
    """The request in an SMB2 TRANSFORM_HEADER, AES-128-CCM (MS-SMB2 3.1.4.3)."""
    nonce = os.urandom(11)
    aad = struct.pack('<16sIHHQ', nonce + bytes(5), len(plain), 0, 1, sid)
    cipher = AES.new(key, AES.MODE_CCM, nonce)
    cipher.update(aad)
    body = cipher.encrypt(bytes(plain))
    return b'\xfdSMB' + cipher.digest() + aad + body


def read_exact(sock, n):
    buf = b''
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def reader(sock, counter):
    """Count the NetBIOS session messages (SMB2 answers) until EOF."""
    try:
        while True:
            hdr = read_exact(sock, 4)
            length = struct.unpack('>I', hdr)[0] & 0x00ffffff
            read_exact(sock, length)
            counter.add()
    except (EOFError, OSError):
        return


T0 = time.monotonic()


def say(msg):
    """One line of output, with the seconds since the start."""
    print('%s t=%.1f' % (msg, time.monotonic() - T0), flush=True)


def main(argv):
    if len(argv) not in (9, 10) or argv[9:] not in ([], ['logoff']):
        sys.exit(__doc__)
    host, share, user, password, name, flow, count, until = argv[1:9]
    count = int(count)
    conn = smb3.SMB3(host, host, preferredDialect=s.SMB2_DIALECT_302)
    say('connected')
    conn.login(user, password)
    say('logged in')
    tid = conn.connectTree(share)
    fid = conn.create(tid, name, s.FILE_READ_DATA, s.FILE_SHARE_READ,
                      s.FILE_NON_DIRECTORY_FILE, s.FILE_OPEN, 0)
    out = conn.ioctl(tid, fid, FSCTL_STORAGE_QOS_CONTROL,
                     s.SMB2_0_IOCTL_IS_FSCTL, qos_request(flow, 1),
                     maxInputResponse=0, maxOutputResponse=88)
    if out is None or len(out) != QOS_RESPONSE.size:
        sys.exit('a %s-byte answer to the FSCTL, want 88'
                 % (None if out is None else len(out)))
    f = QOS_RESPONSE.unpack(out)
    say('tagged flow=%s status=%d max_rate=%d'
        % (uuid.UUID(bytes_le=f[3]), f[7], f[8]))
    if f[8] != 1:
        sys.exit('MaximumIoRate %d, want 1' % f[8])

    # Credits for COUNT READs in flight: every answer grants up to the
    # 127 that impacket asks for.
    for _ in range(count // 120 + 2):
        if not conn.echo():
            sys.exit('ECHO failed')
    say('credits')

    packet = conn.SMB_PACKET()
    packet['Command'] = s.SMB2_READ
    packet['TreeID'] = tid
    rd = s.SMB2Read()
    rd['Padding'] = 0x50
    rd['FileID'] = fid
    rd['Length'] = READ_SIZE
    rd['Offset'] = 0
    packet['Data'] = rd
    sock = conn._NetBIOSSession.get_socket()
    counter = Counter()
    threading.Thread(target=reader, args=(sock, counter), daemon=True).start()
    sealed = bool(conn._Session['SessionFlags'] &
                  s.SMB2_SESSION_FLAG_ENCRYPT_DATA)
    signed = conn._Session['SigningActivated'] and not sealed
    if signed:
        # Signed only: impacket builds and signs every request.
        for _ in range(count):
            conn.sendSMB(packet)
    else:
        # One template; only the MessageId (header offset 24) changes.
        mid = conn._Connection['SequenceWindow']
        sid = conn._Session['SessionID']
        packet['MessageID'] = mid
        packet['SessionID'] = sid
        packet['CreditCharge'] = 1
        packet['CreditRequestResponse'] = 127
        tmpl = bytearray(packet.getData())
        frames = bytearray()
        for i in range(count):
            struct.pack_into('<Q', tmpl, 24, mid + i)
            msg = seal(conn._Session['EncryptionKey'], sid, tmpl) \
                if sealed else tmpl
            frames += struct.pack('>I', len(msg)) + msg
        sock.sendall(frames)
    say('sent %d%s' % (count, ' sealed' if sealed else ''))
    while not os.path.exists(until):
        time.sleep(1)
        say('answered %d' % counter.get())

    if argv[9:] != ['logoff']:
        # The connection ends with the process: no CLOSE, no LOGOFF.
        sock.shutdown(socket.SHUT_RDWR)
        return 0
    # LOGOFF: ksmbd waits for the connection's other requests first.
    logoff = conn.SMB_PACKET()
    logoff['Command'] = s.SMB2_LOGOFF
    logoff['Data'] = s.SMB2Logoff()
    if signed:
        conn.sendSMB(logoff)
    else:
        logoff['MessageID'] = mid + count
        logoff['SessionID'] = sid
        logoff['CreditCharge'] = 1
        msg = logoff.getData()
        if sealed:
            msg = seal(conn._Session['EncryptionKey'], sid, msg)
        sock.sendall(struct.pack('>I', len(msg)) + msg)
    t0 = time.monotonic()
    while counter.get() < count + 1 and time.monotonic() - t0 < 15:
        time.sleep(0.1)
    say('logoff answered=%d of %d in %.1f s'
        % (counter.get(), count + 1, time.monotonic() - t0))
    # The connection ends with the process.
    sock.shutdown(socket.SHUT_RDWR)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
