#!/usr/bin/env python3
"""Run one GAHP protocol case (test/data/gahp/NNN-*.txt) against boinc_gahp.

The driver starts a small fake BOINC project (the remote job submission RPCs
of doc/boinc_gahp.md, in memory) on a loopback port, starts boinc_gahp in a
fresh directory, and walks the case file: lines to send, lines to expect,
and checks on files, stderr and the fake server's log. The case language is
described in README.md beside this file.

usage: gahp-driver.py CASE_FILE WORK_DIR   (boinc_gahp is found on PATH)
"""

import email.parser
import email.policy
import hashlib
import html
import os
import queue
import random
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TIMEOUT = 20.0
SERVER_TIME = "1700000123.4567"
AUTH = "a" + secrets.token_hex(15) + "z"
WRONG_AUTH = "w" + secrets.token_hex(15) + "q"

APPS = {
    "uppercase": (["in1.txt", "in2.txt"], ["out.txt", "log.txt"]),
    "single": (["in"], ["result.dat"]),
    "triple": (["a", "b", "c"], ["out"]),
}


class Fake:
    """The state of the fake project; every handler runs under lock."""

    def __init__(self, logpath):
        self.lock = threading.Lock()
        self.logf = open(logpath, "a", buffering=1)
        self.ping_delay = 0.0
        self.hang = False
        self.stopping = False
        self.files = {}
        self.next_batch = 100
        self.batches = {}
        self.jobs = {}
        self.last_submit = None
        self.batch("b1", "uppercase", 1)
        self.batch("my batch\\x", "single", 1)
        self.job("donejob", "b1", "DONE", canonical=7, exit_status=0, elapsed=12.5,
                 cpu=10.25, stderr="line one <&>\nline two\n",
                 outputs=[b"output one\n", b"log two\n"])
        self.job("errjob", "b1", "ERROR", error=9, mask=1, exit_status=3, elapsed=1.5,
                 cpu=0.75, stderr="crashed\n", outputs=[])
        self.job("deadjob", "b1", "ERROR", mask=16, outputs=[])
        self.job("runjob", "b1", "IN_PROGRESS", outputs=[])
        self.job("unsentjob", "b1", "UNSENT", outputs=[])
        self.job("halfjob", "b1", "DONE", canonical=8, stderr="", outputs=[b"only one\n", None])
        self.job("a job\\x", "my batch\\x", "DONE", canonical=9, exit_status=0, elapsed=2,
                 cpu=1, stderr="spaced\n", outputs=[b"spaced output\n"])

    def batch(self, name, app, state):
        self.next_batch += 1
        self.batches[name] = {"id": self.next_batch, "app": app, "state": state, "expire": 0}
        return self.next_batch

    def job(self, name, batch, status, canonical=0, error=0, mask=0, exit_status=0,
            elapsed=0.0, cpu=0.0, stderr="", outputs=None, mod_time=1700000000):
        self.jobs[name] = dict(batch=batch, status=status, canonical=canonical, error=error,
                               mask=mask, exit_status=exit_status, elapsed=elapsed, cpu=cpu,
                               stderr=stderr, outputs=outputs or [], mod_time=mod_time,
                               app=self.batches[batch]["app"])

    def log(self, text):
        self.logf.write(text + "\n")


def esc(s):
    return html.escape(str(s), quote=False)


class Handler(BaseHTTPRequestHandler):
    fake = None
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body, ctype="text/xml"):
        data = body.encode("latin-1") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def xml(self, root, inner):
        self.reply(200, '<?xml version="1.0" encoding="ISO-8859-1" ?>\n<%s>\n%s</%s>\n'
                   % (root, inner, root))

    def error(self, root, msg):
        self.xml(root, "<error>\n<error_num>-1</error_num>\n<error_msg>%s</error_msg>\n</error>\n"
                 % esc(msg))

    def do_GET(self):
        f = self.fake
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        one = lambda k: q.get(k, [""])[0]
        with f.lock:
            f.log("GET %s cmd=%s wu_name=%s file_num=%s auth=%s" % (
                os.path.basename(u.path), one("cmd"), one("wu_name"), one("file_num"),
                "good" if one("auth_str") == AUTH else "bad"))
            if not u.path.endswith("/get_output.php") or one("cmd") != "workunit_file":
                return self.reply(404, "ERROR: no such page\n", "text/plain")
            if one("auth_str") != AUTH:
                return self.reply(403, "ERROR: bad authenticator\n", "text/plain")
            job = f.jobs.get(one("wu_name"))
            try:
                n = int(one("file_num"))
                data = job["outputs"][n] if job and job["canonical"] else None
            except (ValueError, IndexError):
                data = None
            if data is None:
                return self.reply(404, "ERROR: no such file\n", "text/plain")
            return self.reply(200, data, "application/octet-stream")

    def form(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        ctype = self.headers.get("Content-Type", "")
        fields, files = {}, []
        if ctype.startswith("multipart/form-data"):
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                data = part.get_payload(decode=True)
                if name == "request":
                    fields["request"] = data.decode("utf-8")
                elif name and name.startswith("file_"):
                    files.append((int(name[5:]), data))
        else:
            for k, v in urllib.parse.parse_qs(body.decode()).items():
                fields[k] = v[0]
        files.sort()
        return fields.get("request", ""), [d for _, d in files]

    def do_POST(self):
        f = self.fake
        script = os.path.basename(urllib.parse.urlparse(self.path).path)
        text, files = self.form()
        try:
            doc = ET.fromstring(text)
        except ET.ParseError:
            return self.reply(200, "<error><error_num>-1</error_num><error_msg>can't parse request"
                              "</error_msg></error>")
        cmd = doc.tag
        # "set hang 1" holds every RPC until "set hang 0" or the end of the case
        end = time.time() + 60
        while f.hang and time.time() < end and not f.stopping:
            time.sleep(0.05)
        if cmd == "ping":
            with f.lock:
                f.log("POST %s ping" % script)
                delay = f.ping_delay
            if delay:
                time.sleep(random.uniform(0, delay))
            return self.xml("ping", "<success>1</success>\n")
        with f.lock:
            auth = doc.findtext("authenticator", "")
            f.log("POST %s %s auth=%s" % (script, cmd, "good" if auth == AUTH else "bad"))
            if auth != AUTH:
                # a careless server that echoes the authenticator: the gahp must not pass it on
                return self.error(cmd, "bad authenticator %s" % auth)
            fn = getattr(self, "rpc_" + cmd, None)
            if not fn:
                return self.error(cmd, "unknown command")
            return fn(f, doc, files)

    def rpc_get_templates(self, f, doc, files):
        app = doc.findtext("app_name")
        if app is None:
            job = f.jobs.get(doc.findtext("job_name", ""))
            if not job:
                return self.error("get_templates", "no job named %s" % doc.findtext("job_name"))
            app = job["app"]
        if app not in APPS:
            return self.error("get_templates", "app not found: %s" % app)
        ins, outs = APPS[app]
        it = "<input_template>\n" + "".join(
            "<file_info><number>%d</number></file_info>\n" % i for i in range(len(ins)))
        it += "<workunit>\n" + "".join(
            "<file_ref><file_number>%d</file_number><open_name>%s</open_name></file_ref>\n"
            % (i, n) for i, n in enumerate(ins)) + "</workunit>\n</input_template>\n"
        ot = "<output_template>\n" + "".join(
            "<file_info><name><OUTFILE_%d/></name><max_nbytes>1e6</max_nbytes></file_info>\n" % i
            for i in range(len(outs)))
        ot += "<result>\n" + "".join(
            "<file_ref><file_name><OUTFILE_%d/></file_name><open_name>%s</open_name></file_ref>\n"
            % (i, n) for i, n in enumerate(outs)) + "</result>\n</output_template>\n"
        self.xml("get_templates", "<templates>\n" + it + ot + "</templates>\n")

    def rpc_create_batch(self, f, doc, files):
        name, app = doc.findtext("batch_name", ""), doc.findtext("app_name", "")
        float(doc.findtext("expire_time"))
        if app not in APPS:
            return self.error("create_batch", "no such app %s" % app)
        if name in f.batches:
            return self.error("create_batch", "batch name %s is in use" % name)
        bid = f.batch(name, app, 0)
        f.log("create_batch name=%s app=%s id=%d" % (name, app, bid))
        self.xml("create_batch", "<batch_id>%d</batch_id>\n" % bid)

    def rpc_query_files(self, f, doc, files):
        names = [e.text for e in doc.findall("phys_name")]
        absent = [i for i, n in enumerate(names) if n not in f.files]
        f.log("query_files batch_id=%s n=%d absent=%d" % (doc.findtext("batch_id"), len(names),
                                                          len(absent)))
        self.xml("query_files", "<absent_files>\n%s</absent_files>\n"
                 % "".join("<file>%d</file>\n" % i for i in absent))

    def rpc_upload_files(self, f, doc, files):
        names = [e.text for e in doc.findall("phys_name")]
        if len(names) != len(files):
            return self.error("upload_files", "# of uploaded files (%d) doesn't agree with "
                              "request (%d)" % (len(files), len(names)))
        for n, data in zip(names, files):
            if not n.startswith(hashlib.md5(data).hexdigest()):
                return self.error("upload_files", "file %s is not named by its md5" % n)
            f.files[n] = data
            f.log("upload %s bytes=%d" % (n, len(data)))
        self.xml("upload_files", "<success/>\n")

    def rpc_submit_batch(self, f, doc, files):
        b = doc.find("batch")
        bid = int(b.findtext("batch_id", "0"))
        batch = [k for k, v in f.batches.items() if v["id"] == bid]
        if not batch or f.batches[batch[0]]["state"] != 0:
            return self.error("submit_batch", "no batch %d in state INIT" % bid)
        app = b.findtext("app_name")
        jobs = b.findall("job")
        for i, j in enumerate(jobs):
            name = j.findtext("name")
            if name in f.jobs:
                return self.error("submit_batch", "job name %s is in use" % name)
            srcs = [e.findtext("source") for e in j.findall("input_file")]
            if len(srcs) != len(APPS[app][0]):
                return self.error("submit_batch", "wrong # of input files for job %d: need %d, "
                                  "got %d" % (i, len(APPS[app][0]), len(srcs)))
            for s in srcs:
                if s not in f.files:
                    return self.error("submit_batch", "input file %s was never uploaded" % s)
        for j in jobs:
            f.job(j.findtext("name"), batch[0], "UNSENT", outputs=[], mod_time=1700000100)
        f.batches[batch[0]]["state"] = 1
        f.last_submit = ET.tostring(doc, encoding="unicode")
        with open("server-submit.xml", "w") as out:
            out.write(f.last_submit)
        f.log("submit_batch id=%d jobs=%d" % (bid, len(jobs)))
        self.xml("submit_batch", "<batch_id>%d</batch_id>\n" % bid)

    def rpc_query_batch2(self, f, doc, files):
        since = float(doc.findtext("min_mod_time", "0"))
        out = "<server_time>%s</server_time>\n" % SERVER_TIME
        for name in [e.text for e in doc.findall("batch_name")]:
            if name not in f.batches:
                return self.error("query_batch2", "no batch named %s" % name)
            jobs = [(n, j) for n, j in f.jobs.items()
                    if j["batch"] == name and (since == 0 or j["mod_time"] > since)]
            out += "<batch_size>%d</batch_size>\n" % len(jobs)
            out += "".join("<job><job_name>%s</job_name><status>%s</status></job>\n"
                           % (esc(n), j["status"]) for n, j in jobs)
        f.log("query_batch2 min_mod_time=%s" % doc.findtext("min_mod_time"))
        self.xml("query_batch2", out)

    def rpc_query_completed_job(self, f, doc, files):
        job = f.jobs.get(doc.findtext("job_name", ""))
        if not job:
            return self.error("query_completed_job", "no such job")
        out = "<completed_job>\n<error_mask>%d</error_mask>\n" % job["mask"]
        if job["canonical"]:
            out += "<canonical_resultid>%d</canonical_resultid>\n" % job["canonical"]
        elif job["error"]:
            out += "<error_resultid>%d</error_resultid>\n" % job["error"]
        if job["canonical"] or job["error"]:
            out += ("<exit_status>%d</exit_status>\n<elapsed_time>%s</elapsed_time>\n"
                    "<cpu_time>%s</cpu_time>\n<stderr_out><![CDATA[%s]]></stderr_out>\n"
                    % (job["exit_status"], job["elapsed"], job["cpu"], esc(job["stderr"])))
        self.xml("query_completed_job", out + "</completed_job>\n")

    def rpc_abort_jobs(self, f, doc, files):
        names = [e.text for e in doc.findall("job_name")]
        for n in names:
            if n not in f.jobs:
                return self.error("abort_jobs", "no job %s" % n)
        for n in names:
            f.jobs[n].update(status="ERROR", mask=16)
            f.log("abort %s" % n)
        self.xml("abort_jobs", "<success>1</success>\n")

    def rpc_retire_batch(self, f, doc, files):
        name = doc.findtext("batch_name", "")
        if name not in f.batches:
            return self.error("retire_batch", "no such batch")
        f.batches[name]["state"] = 4
        f.log("retire %s" % name)
        self.xml("retire_batch", "<success>1</success>\n")

    def rpc_set_expire_time(self, f, doc, files):
        name = doc.findtext("batch_name", "")
        if name not in f.batches:
            return self.error("set_expire_time", "no such batch")
        f.batches[name]["expire"] = float(doc.findtext("expire_time"))
        f.log("set_expire_time %s %s" % (name, doc.findtext("expire_time")))
        self.xml("set_expire_time", "<success>1</success>\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that went away mid-reply (the gahp quitting) is no news
        pass


class Failure(Exception):
    pass


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


TOKEN = r"(?:\\.|[^ \\])+"


def pattern(text):
    """An expected line: literal, but @ANY@ is any one token and @REST@ anything."""
    parts = re.split(r"(@ANY@|@REST@)", text)
    return "".join(TOKEN if p == "@ANY@" else ".*" if p == "@REST@" else re.escape(p)
                   for p in parts)


def ids(args):
    out = []
    for a in args:
        if "-" in a:
            lo, hi = a.split("-")
            out += [str(i) for i in range(int(lo), int(hi) + 1)]
        else:
            out.append(a)
    return out


def first_token(s):
    """The first GAHP-escaped token of s (unescaped) and the rest after one space."""
    out, i = [], 0
    while i < len(s) and s[i] != " ":
        if s[i] == "\\" and i + 1 < len(s):
            i += 1
        out.append(s[i])
        i += 1
    return "".join(out), s[i + 1:]


def unescape_c(s):
    return s.encode("latin-1").decode("unicode_escape")


class Run:
    def __init__(self, case, work):
        self.case = case
        self.work = work
        self.proc = None
        self.args = []
        self.lines = queue.Queue()
        self.err = []
        self.err_cv = threading.Condition()
        self.loose_r = False
        self.r_count = 0
        self.out_log = open(os.path.join(work, "stdout.log"), "w", buffering=1)
        self.fake = Fake(os.path.join(work, "server.log"))
        Handler.fake = self.fake
        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.subst = {
            "@URL@": "http://127.0.0.1:%d/proj/" % self.server.server_address[1],
            "@BADURL@": "http://127.0.0.1:%d/proj/" % closed_port(),
            "@AUTH@": AUTH,
            "@WRONGAUTH@": WRONG_AUTH,
            "@DIR@": work,
        }

    def sub(self, s):
        for k, v in self.subst.items():
            s = s.replace(k, v)
        return s

    def start(self):
        if self.proc:
            return
        self.proc = subprocess.Popen(["boinc_gahp", "--log_level", "3"] + self.args,
                                     cwd=self.work, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        threading.Thread(target=self.read_out, daemon=True).start()
        threading.Thread(target=self.read_err, daemon=True).start()

    def read_out(self):
        for raw in self.proc.stdout:
            line = raw.decode("latin-1").rstrip("\n")
            self.out_log.write(line + "\n")
            self.lines.put(line)
        self.lines.put(None)

    def read_err(self):
        with open(os.path.join(self.work, "stderr.log"), "w", buffering=1) as log:
            for raw in self.proc.stderr:
                line = raw.decode("latin-1").rstrip("\n")
                log.write(line + "\n")
                with self.err_cv:
                    self.err.append(line)
                    self.err_cv.notify_all()

    def next_line(self, timeout=TIMEOUT):
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise Failure("no output within %gs" % timeout)
            if self.loose_r and line is not None and re.fullmatch(
                    re.escape(self.prefix_hint) + "R", line):
                self.r_count += 1
                continue
            return line

    prefix_hint = ""

    def expect(self, text):
        want = self.sub(text)
        got = self.next_line()
        if got is None:
            raise Failure("expected %r, got end of output" % want)
        if not re.fullmatch(pattern(want), got):
            raise Failure("expected %r, got %r" % (want, got))

    def wait_done(self, which):
        end = time.time() + TIMEOUT
        with self.err_cv:
            while True:
                done = set()
                for l in self.err:
                    m = re.search(r"debug: request (\d+) done$", l)
                    if m:
                        done.add(m.group(1))
                missing = [i for i in which if i not in done]
                if not missing:
                    return
                left = end - time.time()
                if left <= 0:
                    raise Failure("requests %s not done within %gs" % (missing, TIMEOUT))
                self.err_cv.wait(left)

    def do(self, lineno, line):
        if line.startswith("> ") or line.startswith(">crlf ") or line.startswith(">nonl "):
            self.start()
            end = {">crlf": "\r\n", ">nonl": ""}.get(line.split(" ", 1)[0], "\n")
            data = self.sub(line.split(" ", 1)[1]) + end
            try:
                self.proc.stdin.write(data.encode("latin-1"))
                self.proc.stdin.flush()
            except BrokenPipeError:
                raise Failure("boinc_gahp closed its input")
            return
        if line.startswith("< ") or line == "<":
            self.start()
            return self.expect(line[2:])
        word, _, rest = line.partition(" ")
        a = rest.split()
        if word == "args":
            self.args += [self.sub(x) for x in a]
        elif word == "config":
            with open(os.path.join(self.work, a[0]), "w") as fp:
                fp.write("\n".join(self.sub(x) for x in a[1:]) + "\n")
        elif word == "set":
            setattr(self.fake, a[0], float(a[1]))
        elif word == "wait-done":
            self.start()
            self.wait_done(ids(a))
        elif word == "loose-r":
            self.loose_r = True
            self.prefix_hint = self.sub(rest) if rest else ""
        elif word == "r-count":
            if self.r_count != int(a[0]):
                raise Failure("%d R lines, expected %s" % (self.r_count, a[0]))
            self.r_count = 0
        elif word == "close":
            self.start()
            self.closed_at = time.time()
            self.proc.stdin.close()
        elif word == "exit":
            self.start()
            limit = float(a[1]) if len(a) > 1 else TIMEOUT
            try:
                rc = self.proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                raise Failure("boinc_gahp still running %gs later" % limit)
            if rc != int(a[0]):
                raise Failure("exit status %d, expected %s" % (rc, a[0]))
            got = self.next_line(5)
            if got is not None:
                raise Failure("unexpected output %r before the end" % got)
        elif word == "mkfile":
            path, content = first_token(rest)
            with open(os.path.join(self.work, self.sub(path)), "wb") as fp:
                fp.write(unescape_c(content).encode("latin-1"))
        elif word == "mkdir":
            os.makedirs(os.path.join(self.work, first_token(self.sub(rest))[0]), exist_ok=True)
        elif word == "file":
            path, want = first_token(rest)
            path = os.path.join(self.work, self.sub(path))
            try:
                got = open(path, "rb").read().decode("latin-1")
            except OSError as e:
                raise Failure("cannot read %s: %s" % (path, e))
            if got != unescape_c(want):
                raise Failure("%s holds %r, expected %r" % (path, got, unescape_c(want)))
        elif word == "no-file":
            path = os.path.join(self.work, first_token(self.sub(rest))[0])
            if os.path.exists(path):
                raise Failure("%s exists" % path)
        elif word == "no-files-like":
            left = [os.path.join(d, n) for d, _, names in os.walk(self.work)
                    for n in names if re.search(rest, n)]
            if left:
                raise Failure("files left: %s" % left)
        elif word == "server-log":
            n, _, rx = rest.partition(" ")
            with self.fake.lock:
                text = open(os.path.join(self.work, "server.log")).read().splitlines()
            got = len([l for l in text if re.search(self.sub(rx), l)])
            if got != int(n):
                raise Failure("%d server log lines match %r, expected %s" % (got, rx, n))
        elif word == "server-submit":
            if not re.search(self.sub(rest), self.fake.last_submit or "", re.S):
                raise Failure("submit_batch request lacks %r:\n%s" % (rest, self.fake.last_submit))
        elif word in ("stderr-has", "stderr-lacks"):
            with self.err_cv:
                hit = any(re.search(self.sub(rest), l) for l in self.err)
            if hit != (word == "stderr-has"):
                raise Failure("stderr %s %r" % ("lacks" if word == "stderr-has" else "has", rest))
        elif word == "gen-submit":
            # gen-submit ID BATCH APP NJOBS FILE... : one job per index, all sharing the files
            self.start()
            rid, batch, app, n = a[0], a[1], a[2], int(a[3])
            files = a[4:]
            parts = ["BOINC_SUBMIT", rid, batch, app, str(n)]
            for i in range(n):
                parts += ["%s#%d" % (batch, i), "2", "-n", str(i), str(len(files))]
                for k, fn in enumerate(files):
                    parts += [self.sub(fn), "in%d" % k]
            parts += ["NULL"] * 6
            self.proc.stdin.write((" ".join(parts) + "\n").encode())
            self.proc.stdin.flush()
        else:
            raise Failure("unknown directive %r" % word)

    def finish(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.fake.stopping = True
        self.server.shutdown()
        # the authenticators never show, whatever the case did
        for name in ("stdout.log", "stderr.log"):
            path = os.path.join(self.work, name)
            if os.path.exists(path):
                text = open(path, encoding="latin-1").read()
                for secret in (AUTH, WRONG_AUTH):
                    if secret in text:
                        raise Failure("an authenticator appears in %s" % name)


def main():
    case, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    run = Run(case, os.path.abspath(work))
    lineno = 0
    try:
        with open(case) as fp:
            for lineno, raw in enumerate(fp, 1):
                line = raw.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                run.do(lineno, line)
        lineno = 0
        run.finish()
    except Failure as e:
        where = "%s:%d" % (os.path.basename(case), lineno) if lineno else os.path.basename(case)
        print("FAIL %s: %s" % (where, e))
        try:
            run.finish()
        except Failure as e2:
            print("FAIL %s: %s" % (os.path.basename(case), e2))
        for name in ("stdout.log", "stderr.log", "server.log"):
            path = os.path.join(run.work, name)
            if os.path.exists(path):
                print("--- %s" % name)
                print(open(path, encoding="latin-1").read()[-3000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
