# SPDX-License-Identifier: BSD-3-Clause
"""hang_server.py FILE SECONDS PORTFILE [SERVE_BYTES]: a loopback HTTP
server (127.0.0.1 only) for the hang tests. It writes its port to PORTFILE,
then answers HEAD and ranged GETs of FILE whose range starts below
SERVE_BYTES (default 0: none), and answers 404 to other names; any other
request, and any connection it
accepts, gets no answer at all. It exits after SECONDS whatever happens."""
import os
import socket
import sys
import threading
import time

path, seconds, portfile = sys.argv[1], float(sys.argv[2]), sys.argv[3]
serve_bytes = int(sys.argv[4]) if len(sys.argv) > 4 else 0
data = open(path, 'rb').read() if os.path.exists(path) else b''
end = time.time() + seconds
held = []  # connections kept open and silent


def answer(conn):
    conn.settimeout(max(0.1, end - time.time()))
    try:
        while True:
            req = b''
            while b'\r\n\r\n' not in req:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                req += chunk
            head = req.split(b'\r\n\r\n', 1)[0].decode('latin-1').split('\r\n')
            method, target = head[0].split(' ')[:2]
            rng = [h for h in head if h.lower().startswith('range:')]
            if serve_bytes > 0 and target != '/' + os.path.basename(path):
                conn.sendall(b'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')
                continue
            if method == 'HEAD' and serve_bytes > 0:
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\n'
                             b'Accept-Ranges: bytes\r\n\r\n' % len(data))
                continue
            if method == 'GET' and rng and serve_bytes > 0:
                a, b = rng[0].split('=', 1)[1].strip().split('-')
                a, b = int(a), min(int(b or len(data) - 1), len(data) - 1)
                if a < serve_bytes:
                    body = data[a:b + 1]
                    conn.sendall(b'HTTP/1.1 206 Partial Content\r\nContent-Length: %d\r\n'
                                 b'Content-Range: bytes %d-%d/%d\r\n\r\n'
                                 % (len(body), a, b, len(data)) + body)
                    continue
            held.append(conn)  # never answered
            return
    except OSError:
        return


s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0))
s.listen(64)
with open(portfile + '.tmp', 'w') as f:
    f.write(str(s.getsockname()[1]))
os.rename(portfile + '.tmp', portfile)
s.settimeout(0.2)
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    threading.Thread(target=answer, args=(c,), daemon=True).start()
