#!/usr/bin/env python3
"""A fake sweep master for test/t/t6000-sweep-client.sh: the six requests of
doc/sweep-protocol.md, driven and recorded through files in one directory.

  fake_master.py DIR

DIR/session        the session ID the master accepts (403 for any other)
DIR/config         the body of GET /config; DIR/config.status overrides 200
DIR/worker         the body of GET /worker; DIR/worker.status overrides 200
DIR/tasks/*        task bodies, handed out in name order (each moves to
                   DIR/served/); none left: 503; DIR/task.status overrides
DIR/ping.TICKET    the status answered to pings of TICKET (default 204)
DIR/errors         a number N: the next N requests get 500
DIR/prefix         a path the endpoints are under ("/p_cgi/sweep"), as a
                   project serves them; without it, the server's root (the
                   seed's form). A request outside it: 404, logged with its path
DIR/port           written at start: the loopback port it listens on

Every request is appended to DIR/log as "PATH TICKET STATUS" (no session
ID; PATH without the prefix). A POST /complete body is saved as DIR/complete.TICKET and, decoded
with its Length lines, each result as DIR/result.TICKET.NAME.
"""
import http.server
import os
import socketserver
import sys
import threading
import urllib.parse

D = sys.argv[1]
lock = threading.Lock()


def path(name):
    return os.path.join(D, name)


def read(name, default=None):
    try:
        with open(path(name), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return default


def status_file(name, default):
    v = read(name)
    return int(v.strip()) if v else default


def decode_complete(body):
    """[Result] sections with Name= and a Length-framed content block."""
    out = {}
    pos, name, length = 0, None, None
    while pos < len(body):
        nl = body.find(b"\n", pos)
        line = body[pos:] if nl < 0 else body[pos:nl]
        pos = len(body) if nl < 0 else nl + 1
        line = line.rstrip(b"\r")
        if line == b"[Result]":
            name, length = None, None
        elif line.startswith(b"Name="):
            name = line[5:].decode()
        elif line.startswith(b"Length="):
            length = int(line[7:])
        elif line == b"--begin content--":
            if length is None:
                raise ValueError("no Length")
            out[name] = body[pos:pos + length]
            pos += length
            if body[pos:pos + 16] != b"\n--end content--":
                raise ValueError("no end marker after Length")
            pos += 16
            if body[pos:pos + 1] == b"\n":
                pos += 1
    return out


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body=b""):
        self.send_response(status)
        if status not in (204, 205):
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Content-Length", "0")
        self.end_headers()
        if status not in (204, 205) and body:
            self.wfile.write(body)

    def record(self, what, ticket, status):
        with lock:
            with open(path("log"), "a") as f:
                f.write("%s %s %d\n" % (what, ticket or "-", status))

    def handle_one(self, post):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        prefix = (read("prefix", b"") or b"").decode().strip()
        if prefix:
            if not u.path.startswith(prefix + "/"):
                self.record("outside " + u.path, None, 404)
                return self.reply(404)
            u = u._replace(path=u.path[len(prefix):])
        ticket = q.get("ticket", [None])[0]
        body = b""
        if post:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            errors = status_file("errors", 0)
            if errors > 0:
                with open(path("errors"), "w") as f:
                    f.write("%d\n" % (errors - 1))
        if errors > 0:
            self.record(u.path, ticket, 500)
            return self.reply(500, b"broken\n")
        session = (read("session", b"") or b"").decode().strip()
        if q.get("sessionID", [None])[0] != session:
            self.record(u.path, ticket, 403)
            return self.reply(403)
        if u.path == "/config":
            st = status_file("config.status", 200)
            self.record(u.path, ticket, st)
            return self.reply(st, read("config", b"") if st == 200 else b"")
        if u.path == "/worker":
            st = status_file("worker.status", 200)
            self.record(u.path + " " + q.get("name", ["?"])[0] + " " +
                        q.get("platform", ["?"])[0], ticket, st)
            return self.reply(st, read("worker", b"") if st == 200 else b"")
        if u.path == "/task":
            st = status_file("task.status", 0)
            if st:
                self.record(u.path, None, st)
                return self.reply(st)
            with lock:
                names = sorted(os.listdir(path("tasks")))
                if not names:
                    st, data = 503, b""
                else:
                    data = read(os.path.join("tasks", names[0]))
                    os.rename(path(os.path.join("tasks", names[0])),
                              path(os.path.join("served", names[0])))
                    st = 200
            self.record(u.path, None, st)
            return self.reply(st, data)
        if u.path == "/ping":
            st = status_file("ping." + str(ticket), 204)
            self.record(u.path, ticket, st)
            return self.reply(st)
        if u.path == "/complete" and post:
            with open(path("complete." + ticket), "wb") as f:
                f.write(body)
            try:
                for name, data in decode_complete(body).items():
                    with open(path("result.%s.%s" % (ticket, name)), "wb") as f:
                        f.write(data)
                st = 200
            except ValueError:
                st = 400
            self.record(u.path, ticket, st)
            return self.reply(st, b"OK\n")
        if u.path == "/failed":
            self.record(u.path, ticket, 200)
            return self.reply(200, b"OK\n")
        self.record(u.path, ticket, 404)
        return self.reply(404)

    def do_GET(self):
        self.handle_one(False)

    def do_POST(self):
        self.handle_one(True)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    for sub in ("tasks", "served"):
        os.makedirs(path(sub), exist_ok=True)
    srv = Server(("127.0.0.1", 0), Handler)
    with open(path("port.tmp"), "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(path("port.tmp"), path("port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
