#!/usr/bin/env python3
"""Simulated BOINC 7.20 hosts for wseq's chaos test (test/t/t9000-chaos.sh).

Many hosts in one process, each a thread speaking the scheduler RPC and the
upload handler protocol as the real client does (BOINC 7.20's
client/cs_scheduler.cpp, result.cpp, client_types.cpp, file_xfer.cpp; see
doc/chaos.md): hostid and rpc_seqno, host_info with its own host_cpid and
domain_name, completed results reported until acknowledged, sticky files
listed as top-level <file_info>, other_results, downloads checked against
<nbytes> and <md5_cksum>, uploads with get_file_size for files of 8 KB or
more and a header echoing <xml_signature>, result_abort, delete_file_info,
request_delay. Instead of running the app a host computes a function of the
job's inputs and command line (job_output, seq_step, seq_answer) that the
final check computes too, so every output can be checked independently.

Subcommands:
  make-work   write inputs, initial states, the create_work and
              create_sequence stdin lines and a manifest
  run         run the hosts until the stop file appears; writes stats.json
  check       compare the project's assimilated outputs with the manifest

Standard library only. Times a server asks a host to wait (request_delay,
back-off) are scaled down (--delay-scale): the hosts live in compressed
time, the server's clock is shifted with WSEQ_TIME_OFFSET_FILE by the test.
"""

import argparse
import hashlib
import http.client
import json
import os
import random
import re
import socket
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

PLATFORM = "x86_64-pc-linux-gnu"
STATE_BYTES = 9000              # above 8 KB: every state upload asks get_file_size first
FILE_SIZE_CHECK = 8192          # client/file_xfer.cpp FILE_SIZE_CHECK_THRESHOLD

# result states and exit codes as the client reports them (common_defs.h)
ST_DOWNLOAD_ERROR, ST_COMPUTE_ERROR, ST_UPLOADED, ST_ABORTED, ST_UPLOAD_FAILED = 1, 3, 5, 6, 7
EXIT_DOWNLOAD = -186
EXIT_UPLOAD = -187
EXIT_UNSTARTED_LATE = 200
EXIT_ABORTED_BY_PROJECT = 202


# --- the "app": what every host computes and what the check expects ---------

def job_output(cmdline, data):
    """An ordinary job's output file 'out' from its input 'in'."""
    h = hashlib.sha256(b"wseq-chaos job\0" + cmdline.encode() + b"\0" + data).digest()
    if "--big" in cmdline.split():
        return hashlib.shake_256(h).hexdigest(10000).encode()       # 20,000 bytes
    return h.hex().encode() + b"\n"


def seq_step(cmdline, state):
    """One segment: state_out from state_in. No seqno in it, so a relocated
    sequence ends with the state of an uninterrupted run."""
    return hashlib.shake_256(b"wseq-chaos seq\0" + cmdline.encode() + b"\0" + state).digest(STATE_BYTES)


def seq_answer(state):
    return hashlib.sha256(state).hexdigest().encode() + b"\n"


def md5hex(b):
    return hashlib.md5(b).hexdigest()


# --- make-work -------------------------------------------------------------

def cmd_make_work(a):
    rnd = random.Random(a.seed)
    os.makedirs(os.path.join(a.dir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(a.dir, "states"), exist_ok=True)
    manifest = {"jobs": {}, "sequences": {}}
    ninputs = max(1, int(a.jobs * 0.6))
    inputs = []
    for i in range(ninputs):
        path = os.path.join(a.dir, "inputs", "chaos_in_%04d" % i)
        with open(path, "wb") as f:
            f.write(("input %d %s\n" % (i, rnd.getrandbits(128))).encode() * rnd.randint(1, 40))
        inputs.append(path)
    with open(os.path.join(a.dir, "jobs.stdin"), "w") as out:
        for j in range(a.jobs):
            name = "chaos_j%04d" % j
            # inputs are shared by some jobs: the file deleter must keep a file one still needs
            path = inputs[j % ninputs]
            big = j % 7 == 0
            cmdline = "--job %d%s" % (j, " --big" if big else "")
            quorum = 2 if j % 10 < a.quorum2_tenths else 1
            out.write('--wu_name %s --command_line "%s" --min_quorum %d --target_nresults %d %s\n'
                      % (name, cmdline, quorum, quorum, path))
            manifest["jobs"][name] = {"input": path, "cmdline": cmdline, "quorum": quorum}
    with open(os.path.join(a.dir, "sequences.stdin"), "w") as out:
        for s in range(a.sequences):
            name = "chaos_s%03d" % s
            path = os.path.join(a.dir, "states", name + "_init")
            with open(path, "wb") as f:
                f.write(hashlib.shake_256(b"init %d %d" % (a.seed, s)).digest(STATE_BYTES))
            cmdline = "--state --seq %d" % s
            out.write('--seq_name %s --command_line "%s" %s\n' % (name, cmdline, path))
            manifest["sequences"][name] = {"init": path, "cmdline": cmdline,
                                           "segments": a.segments}
    with open(os.path.join(a.dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    return 0


# --- check ---------------------------------------------------------------------

def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def cmd_check(a):
    """Every job's and every live segment's assimilated outputs are what the
    function gives; results/WU holds nothing else. The segments come from
    the database (--segments: TSV of seq name, seqno, branch, wu name,
    canonical result id, assimilate_state, live)."""
    with open(a.manifest) as f:
        m = json.load(f)
    bad = []
    res = os.path.join(a.project, "results")
    for name, j in sorted(m["jobs"].items()):
        d = os.path.join(res, name)
        want = job_output(j["cmdline"], read_file(j["input"]))
        try:
            got = read_file(os.path.join(d, "out"))
        except OSError as e:
            bad.append("job %s: no assimilated output (%s)" % (name, e.strerror))
            continue
        if got != want:
            bad.append("job %s: output %s, expected %s" % (name, md5hex(got), md5hex(want)))
        extra = sorted(set(os.listdir(d)) - {"out"})
        if extra:
            bad.append("job %s: results/%s holds more than 'out': %s" % (name, name, " ".join(extra)))
    # expected state after k segments, per sequence
    states = {}
    for name, s in m["sequences"].items():
        st = [read_file(s["init"])]
        for _ in range(s["segments"]):
            st.append(seq_step(s["cmdline"], st[-1]))
        states[name] = st
    seen = {}
    with open(a.segments) as f:
        for line in f:
            seq, seqno, branch, wu, canon, assim, live = line.rstrip("\n").split("\t")
            seqno, branch, canon, assim, live = int(seqno), int(branch), int(canon), int(assim), int(live)
            if seq not in m["sequences"]:
                continue
            st = states[seq]
            d = os.path.join(res, wu)
            if live:
                seen.setdefault(seq, set()).add(seqno)
                if not canon or assim != 2:
                    bad.append("sequence %s: segment %d (%s) has no assimilated canonical result"
                               % (seq, seqno, wu))
                    continue
            if not canon or not os.path.isdir(d):
                continue
            # any assimilated segment, live or dead branch, holds the right answer and state
            files = set(os.listdir(d))
            last = seqno == m["sequences"][seq]["segments"]
            want_files = {"answer"} | ({"state_out"} if last or seqno % a.state_every == 0 else set())
            if files != want_files:
                bad.append("sequence %s: results/%s holds %s, expected %s"
                           % (seq, wu, " ".join(sorted(files)), " ".join(sorted(want_files))))
            if "answer" in files and read_file(os.path.join(d, "answer")) != seq_answer(st[seqno]):
                bad.append("sequence %s: segment %d (%s): wrong answer" % (seq, seqno, wu))
            if "state_out" in files and read_file(os.path.join(d, "state_out")) != st[seqno]:
                bad.append("sequence %s: segment %d (%s): wrong state" % (seq, seqno, wu))
    for seq, s in sorted(m["sequences"].items()):
        missing = set(range(1, s["segments"] + 1)) - seen.get(seq, set())
        if missing:
            bad.append("sequence %s: no live segment %s" % (seq, ",".join(map(str, sorted(missing)))))
    for b in bad[:200]:
        print(b)
    if len(bad) > 200:
        print("... and %d more" % (len(bad) - 200))
    print("check: %d jobs, %d sequences, %d problems" % (len(m["jobs"]), len(m["sequences"]), len(bad)))
    return 1 if bad else 0


# --- the hosts -------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {}
        self.anomalies = []

    def add(self, key, n=1):
        with self.lock:
            self.c[key] = self.c.get(key, 0) + n

    def anomaly(self, host, text):
        with self.lock:
            self.c["anomalies"] = self.c.get("anomalies", 0) + 1
            if len(self.anomalies) < 200:
                self.anomalies.append("%s (%s): %s" % (host.name, host.kind, text))


class Env:
    """What every host shares: the project, the clock, the other hosts."""

    def __init__(self, a):
        self.a = a
        self.stats = Stats()
        self.hosts = []
        self.http = threading.BoundedSemaphore(a.max_http)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.epoch = self.offset()
        u = urllib.parse.urlsplit(a.url)
        self.netloc = u.netloc
        self.sched_url = None

    def offset(self):
        try:
            with open(self.a.offset_file) as f:
                return float(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return 0.0

    def server_now(self):
        return time.time() + self.offset()

    def log(self, text):
        if self.a.verbose:
            with self.lock:
                sys.stderr.write("%.3f %s\n" % (time.time(), text))


def http_request(env, method, url, body=None, timeout=120):
    """(status, body bytes); raises OSError on a connection failure."""
    u = urllib.parse.urlsplit(url)
    path = u.path + ("?" + u.query if u.query else "")
    with env.http:
        c = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)
        try:
            c.request(method, path, body=body,
                      headers={"User-Agent": "BOINC client (%s 7.20.5)" % PLATFORM,
                               "Content-Type": "application/x-www-form-urlencoded"})
            r = c.getresponse()
            return r.status, r.read()
        except http.client.HTTPException as e:
            raise OSError(str(e))
        finally:
            c.close()


def cut_upload(env, url, header, data):
    """Send the header and part of the data with the whole Content-Length,
    then close: a connection cut in the middle of an upload."""
    u = urllib.parse.urlsplit(url)
    body = header + data[:len(data) // 2]
    req = ("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n"
           "Content-Type: application/x-www-form-urlencoded\r\n\r\n"
           % (u.path, u.netloc, len(header) + len(data))).encode() + body
    with env.http:
        s = socket.create_connection((u.hostname, u.port or 80), timeout=60)
        try:
            s.sendall(req)
            time.sleep(0.5)         # long enough for the handler to have started and read it
        finally:
            s.close()


def find_scheduler(env):
    st, body = http_request(env, "GET", env.a.url)
    text = body.decode("utf-8", "replace")
    m = re.search(r'<link rel="boinc_scheduler" href="([^"]+)"', text) or \
        re.search(r"<scheduler>\s*([^<\s]+)\s*</scheduler>", text)
    if st != 200 or not m:
        raise SystemExit("simhost: no scheduler URL on the master page %s" % env.a.url)
    return m.group(1)


def xesc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class File:
    def __init__(self, name):
        self.name = name
        self.urls = []          # download URLs
        self.upload_urls = []
        self.sticky = False
        self.md5 = ""
        self.nbytes = 0.0
        self.max_nbytes = 0.0
        self.signature = ""     # <xml_signature>, whitespace stripped, echoed in uploads
        self.data = None        # bytes when present
        self.uploaded = False
        self.upload_errors = 0
        self.next_try = 0.0

    def merge(self, fi):
        """client_types.cpp FILE_INFO::merge_info: URLs and sticky from the new one."""
        self.urls = [u for u in fi["urls"] if "file_upload_handler" not in u]
        self.upload_urls = [u for u in fi["urls"] if "file_upload_handler" in u]
        self.sticky = fi["sticky"]
        if not self.max_nbytes:
            self.max_nbytes = fi["max_nbytes"]
        if fi["signature"]:
            self.signature = fi["signature"]


class Result:
    def __init__(self, name, wu, deadline, outs):
        self.name = name
        self.wu = wu
        self.deadline = deadline
        self.outs = outs        # [(file_name, open_name)]
        self.state = 0          # 0 new, 2 computed (uploading), else a final client state
        self.exit_status = 0
        self.ready = False      # ready to report
        self.stderr = ""
        self.elapsed = 1.0


class Host(threading.Thread):
    def __init__(self, env, index, kind):
        super().__init__(name="host%d" % index, daemon=True)
        self.env = env
        self.a = env.a
        self.kind = kind
        self.index = index
        self.rnd = random.Random(env.a.seed * 1000 + index)
        self.name = "sim%02d-%s" % (index, kind)
        self.cpid = hashlib.md5(("chaos host %d %d" % (env.a.seed, index)).encode()).hexdigest()
        self.hostid = 0
        self.rpc_seqno = 0
        self.code_sign_key = None
        self.files = {}
        self.wus = {}
        self.results = {}       # name -> Result, in arrival order
        self.next_rpc = 0.0
        self.backoff = 0
        self.nrpc = 0
        self.jobs_got = 0
        self.dormant = False    # vanished
        self.vanish_mode = ("before_compute", "before_report")[index % 2]
        self.vanish_late = index % 4 >= 2
        self.returns = kind == "vanish" and index % 4 in (0, 3)
        self.came_back = False
        self.published = []     # publish(): what a liar peeks at

    # --- bookkeeping ---

    def file(self, name):
        f = self.files.get(name)
        if f is None:
            f = self.files[name] = File(name)
        return f

    def publish(self):
        """[(result, [(output, open name, uploaded)])], for other threads to read
        without a lock (one reference assignment)."""
        self.published = [(r.name, [(f, o, f in self.files and self.files[f].uploaded)
                                    for f, o in r.outs]) for r in self.results.values()]

    def gc(self):
        """Files no result and no workunit refers to and not sticky go (garbage_collect)."""
        used = set()
        for r in self.results.values():
            used.update(n for n, _ in r.outs)
            w = self.wus.get(r.wu)
            if w:
                used.update(n for n, _ in w["refs"])
        for name in list(self.files):
            f = self.files[name]
            if not f.sticky and name not in used:
                del self.files[name]
        live = {r.wu for r in self.results.values()}
        for w in list(self.wus):
            if w not in live:
                del self.wus[w]

    # --- the request ---

    def want_work(self):
        if self.kind in ("garbage", "liar") and self.jobs_got >= self.a.bad_host_jobs:
            return False
        pending = sum(1 for r in self.results.values() if not r.ready)
        return pending < self.a.buffer

    def request(self, ask):
        out = ["<scheduler_request>\n",
               "    <authenticator>%s</authenticator>\n" % self.a.auth,
               "    <hostid>%d</hostid>\n" % self.hostid,
               "    <rpc_seqno>%d</rpc_seqno>\n" % self.rpc_seqno,
               "    <core_client_major_version>7</core_client_major_version>\n",
               "    <core_client_minor_version>20</core_client_minor_version>\n",
               "    <core_client_release>5</core_client_release>\n",
               "    <resource_share_fraction>1.000000</resource_share_fraction>\n",
               "    <rrs_fraction>1.000000</rrs_fraction>\n",
               "    <prrs_fraction>1.000000</prrs_fraction>\n",
               "    <duration_correction_factor>1.000000</duration_correction_factor>\n",
               "    <allow_multiple_clients>0</allow_multiple_clients>\n",
               "    <sandbox>0</sandbox>\n",
               "    <dont_send_work>0</dont_send_work>\n",
               "    <work_req_seconds>%f</work_req_seconds>\n" % (self.a.req_seconds if ask else 0),
               "    <cpu_req_secs>%f</cpu_req_secs>\n" % (self.a.req_seconds if ask else 0),
               "    <cpu_req_instances>%f</cpu_req_instances>\n" % (2 if ask else 0),
               "    <estimated_delay>0.000000</estimated_delay>\n",
               "    <client_cap_plan_class>1</client_cap_plan_class>\n",
               "    <platform_name>%s</platform_name>\n" % PLATFORM]
        if self.code_sign_key:
            out.append("<code_sign_key>\n%s</code_sign_key>\n" % self.code_sign_key)
        out.append(self.host_info())
        for r in self.results.values():
            if r.ready:
                out.append(self.result_xml(r))
        for f in self.files.values():
            if f.sticky:
                out.append("    <file_info>\n        <name>%s</name>\n        <nbytes>%f</nbytes>\n"
                           "        <status>%d</status>\n    </file_info>\n"
                           % (f.name, f.nbytes, 1 if f.data is not None else 0))
        out.append("<app_versions>\n<app_version>\n    <app_name>wseq_sample</app_name>\n"
                   "    <version_num>100</version_num>\n    <platform>%s</platform>\n"
                   "</app_version>\n</app_versions>\n" % PLATFORM)
        out.append("<other_results>\n")
        for r in self.results.values():
            if not r.ready:
                out.append("    <other_result>\n        <name>%s</name>\n"
                           "        <app_version>0</app_version>\n    </other_result>\n" % r.name)
        out.append("</other_results>\n")
        out.append(self.extra_request())
        out.append("</scheduler_request>\n")
        # surrogateescape: the garbage host's raw bytes go out as they are
        return "".join(out).encode("utf-8", "surrogateescape")

    def host_info(self):
        return ("<host_info>\n    <timezone>0</timezone>\n"
                "    <domain_name>%s</domain_name>\n    <ip_addr>127.0.0.%d</ip_addr>\n"
                "    <host_cpid>%s</host_cpid>\n    <p_ncpus>2</p_ncpus>\n"
                "    <p_vendor>GenuineIntel</p_vendor>\n    <p_model>chaos</p_model>\n"
                "    <p_fpops>1000000000.000000</p_fpops>\n    <p_iops>1000000000.000000</p_iops>\n"
                "    <m_nbytes>8000000000.000000</m_nbytes>\n    <m_swap>2000000000.000000</m_swap>\n"
                "    <d_total>200000000000.000000</d_total>\n    <d_free>100000000000.000000</d_free>\n"
                "    <os_name>Linux Debian</os_name>\n    <os_version>6.1</os_version>\n"
                "</host_info>\n" % (self.name, self.index + 10, self.cpid))

    def stderr_text(self, r):
        return "<stderr_txt>\nsimhost %s ran %s\n</stderr_txt>\n" % (self.name, r.name)

    def result_xml(self, r, extra_files=""):
        out = ["<result>\n    <name>%s</name>\n" % xesc(r.name),
               "    <final_cpu_time>%f</final_cpu_time>\n" % (r.elapsed * 0.9),
               "    <final_elapsed_time>%f</final_elapsed_time>\n" % r.elapsed,
               "    <exit_status>%d</exit_status>\n    <state>%d</state>\n" % (r.exit_status, r.state),
               "    <platform>%s</platform>\n    <version_num>100</version_num>\n" % PLATFORM,
               "    <final_peak_working_set_size>12345678</final_peak_working_set_size>\n",
               "    <final_peak_disk_usage>45678</final_peak_disk_usage>\n",
               "    <app_version_num>100</app_version_num>\n",
               "<stderr_out>\n<core_client_version>7.20.5</core_client_version>\n"
               "<![CDATA[\n%s]]>\n</stderr_out>\n" % (r.stderr or self.stderr_text(r))]
        for fname, _ in r.outs:
            f = self.files.get(fname)
            if f and f.uploaded:
                out.append(self.file_report(f.name, f.nbytes, f.max_nbytes, f.md5,
                                            f.upload_urls[0] if f.upload_urls else ""))
        out.append(extra_files)
        out.append("</result>\n")
        return "".join(out)

    @staticmethod
    def file_report(name, nbytes, max_nbytes, md5, url):
        return ("<file_info>\n    <name>%s</name>\n    <nbytes>%f</nbytes>\n"
                "    <max_nbytes>%f</max_nbytes>\n    <md5_cksum>%s</md5_cksum>\n"
                "    <upload_url>%s</upload_url>\n</file_info>\n"
                % (xesc(name), nbytes, max_nbytes, md5, xesc(url)))

    def extra_request(self):
        return ""

    # --- the reply ---

    def rpc(self):
        ask = self.want_work()
        body = self.request(ask)
        self.rpc_send(body, ask)

    def rpc_send(self, body, ask):
        env = self.env
        self.nrpc += 1
        env.stats.add("rpcs")
        env.stats.add("rpcs_" + self.kind)
        try:
            st, reply = http_request(env, "POST", env.sched_url, body)
        except OSError as e:
            env.stats.add("rpc_connect_errors")
            env.log("%s: rpc failed: %s" % (self.name, e))
            return self.rpc_failed()
        if st != 200:
            env.stats.add("rpc_http_errors")
            env.log("%s: rpc HTTP %d" % (self.name, st))
            return self.rpc_failed()
        i = reply.find(b"<scheduler_reply")
        try:
            root = ET.fromstring(reply[i:]) if i >= 0 else None
        except ET.ParseError as e:
            root = None
            env.log("%s: reply does not parse: %s" % (self.name, e))
        if root is None:
            env.stats.add("rpc_bad_replies")
            if self.kind not in ("garbage",):
                env.stats.anomaly(self, "unparsable scheduler reply: %r" % reply[:200])
            return self.rpc_failed()
        self.apply_reply(root)

    def rpc_failed(self):
        self.backoff = min(self.backoff + 1, 5)
        self.next_rpc = time.time() + min(60 * 2 ** self.backoff * self.a.delay_scale, 10)

    def apply_reply(self, root):
        env = self.env
        a = self.a
        down = root.find("project_is_down") is not None
        msgs = [m.text or "" for m in root.findall("message")]
        if down:
            env.stats.add("rpc_project_down")
        for m in msgs:
            if "could not read" in m or "temporarily unavailable" in m or "Invalid" in m:
                env.stats.add("rpc_refused_" + self.kind)
                if self.kind not in ("garbage", "liar"):
                    if "temporarily unavailable" not in m:
                        env.stats.anomaly(self, "refused: %s" % m)
        delay = float(root.findtext("request_delay") or 0)
        if delay >= 600 and not down:
            env.stats.add("long_request_delays_" + self.kind)
        hostid = root.findtext("hostid")
        if hostid:
            if self.hostid:
                env.stats.anomaly(self, "got a new hostid %s (had %d)" % (hostid, self.hostid))
            self.hostid = int(hostid)
            self.rpc_seqno = 0
        else:
            self.rpc_seqno += 1
        key = root.findtext("code_sign_key")
        if key and not self.code_sign_key:
            self.code_sign_key = key.strip() + "\n"
        if down:
            return self.rpc_failed()
        self.backoff = 0
        for ack in root.findall("result_ack"):
            name = ack.findtext("name")
            r = self.results.get(name)
            if r and r.ready:
                del self.results[name]
                env.stats.add("acked")
        for ab in root.findall("result_abort"):
            name = ab.findtext("name")
            r = self.results.get(name)
            env.stats.add("aborts_received")
            if r and r.state == 0:
                r.state, r.exit_status, r.ready = ST_ABORTED, EXIT_ABORTED_BY_PROJECT, True
        for d in root.findall("delete_file_info"):
            f = self.files.get((d.text or "").strip())
            env.stats.add("deletes_received")
            if f:
                f.sticky = False
        for fi in root.findall("file_info"):
            self.take_file_info(fi)
        for w in root.findall("workunit"):
            name = w.findtext("name")
            refs = [(fr.findtext("file_name"), fr.findtext("open_name") or "")
                    for fr in w.findall("file_ref")]
            self.wus.setdefault(name, {"cmdline": w.findtext("command_line") or "", "refs": refs})
        for rx in root.findall("result"):
            name = rx.findtext("name")
            if name in self.results:
                continue        # "Already have task"
            outs = [(fr.findtext("file_name"), fr.findtext("open_name") or "")
                    for fr in rx.findall("file_ref")]
            for fname, _ in outs:
                f = self.files.get(fname)
                if f and (f.data is not None or f.uploaded):
                    env.stats.anomaly(self, "result %s names output %s the host has already"
                                      % (name, fname))
            self.results[name] = Result(name, rx.findtext("wu_name"),
                                        int(float(rx.findtext("report_deadline") or 0)), outs)
            self.jobs_got += 1
            env.stats.add("jobs_received")
        self.gc()
        self.next_rpc = time.time() + max(delay * a.delay_scale, 0)

    def take_file_info(self, fi):
        name = fi.findtext("name")
        sig = fi.findtext("xml_signature")
        info = {"urls": [u.text.strip() for u in fi.findall("url") if u.text] +
                        [u.text.strip() for u in fi.findall("download_url") if u.text] +
                        [u.text.strip() for u in fi.findall("upload_url") if u.text],
                "sticky": fi.find("sticky") is not None,
                "max_nbytes": float(fi.findtext("max_nbytes") or 0),
                "signature": sig.strip() if sig else ""}
        known = name in self.files
        f = self.file(name)
        f.merge(info)
        if not known:
            f.md5 = (fi.findtext("md5_cksum") or "").strip()
            f.nbytes = float(fi.findtext("nbytes") or 0)

    # --- running jobs ---

    def download(self, f):
        """True when present; False to wait; raises ValueError on a permanent failure."""
        if f.data is not None:
            return True
        if not f.urls:
            return False            # made by an earlier segment, or never: wait
        if time.time() < f.next_try:
            return False
        try:
            st, body = http_request(self.env, "GET", f.urls[0])
        except OSError:
            f.next_try = time.time() + 2
            self.env.stats.add("download_transient")
            return False
        self.env.stats.add("downloads")
        if 400 <= st < 500:
            raise ValueError("%s: HTTP %d" % (f.urls[0], st))
        if st != 200:
            f.next_try = time.time() + 2
            self.env.stats.add("download_transient")
            return False
        if f.nbytes and len(body) != int(f.nbytes):
            raise ValueError("%s: %d bytes, not %d" % (f.name, len(body), f.nbytes))
        if f.md5 and md5hex(body) != f.md5:
            raise ValueError("%s: md5 %s, not %s" % (f.name, md5hex(body), f.md5))
        f.data = body
        f.nbytes = float(len(body))
        f.md5 = md5hex(body)
        return True

    def compute(self, r):
        """Run result r if its inputs are here: its outputs appear. False to wait."""
        w = self.wus.get(r.wu)
        if w is None:
            return False
        inputs = {}
        try:
            for fname, open_name in w["refs"]:
                f = self.files.get(fname)
                if f is None or not self.download(f):
                    return False
                inputs[open_name] = f.data
        except ValueError as e:
            self.env.stats.add("download_errors")
            if self.kind not in ("garbage", "liar"):
                self.env.stats.anomaly(self, "download of an input of %s failed: %s" % (r.name, e))
            r.state, r.exit_status, r.ready = ST_DOWNLOAD_ERROR, EXIT_DOWNLOAD, True
            r.stderr = "<message>\nWU download error: %s\n</message>\n" % xesc(str(e))
            return True
        outs = {}
        if "state_in" in inputs:
            st = seq_step(w["cmdline"], inputs["state_in"])
            outs = {"state_out": st, "answer": seq_answer(st)}
        else:
            outs = {"out": job_output(w["cmdline"], inputs.get("in", b""))}
        r.elapsed = self.elapsed_for(r, "state_in" in inputs)
        if self.fails(r):
            r.state, r.exit_status, r.ready = ST_COMPUTE_ERROR, 1, True
            r.stderr = "<stderr_txt>\nsimhost: failing on purpose\n</stderr_txt>\n"
            self.env.stats.add("failed_on_purpose")
            return True
        for fname, open_name in r.outs:
            f = self.file(fname)
            data = outs.get(open_name, b"")
            if f.max_nbytes and len(data) > f.max_nbytes:
                r.state, r.exit_status, r.ready = ST_COMPUTE_ERROR, 0, True
                return True
            f.data = data
            f.nbytes = float(len(data))
            f.md5 = md5hex(data)
        r.state = 2
        return True

    def elapsed_for(self, r, segment):
        return 1.0 + self.rnd.random()

    def fails(self, r):
        return False

    def upload(self, f):
        """True uploaded, False later, raises ValueError on a permanent refusal."""
        env = self.env
        if time.time() < f.next_try:
            return False
        url = f.upload_urls[0]
        offset = 0
        try:
            if len(f.data) >= FILE_SIZE_CHECK:
                q = ("<data_server_request>\n"
                     "    <core_client_major_version>7</core_client_major_version>\n"
                     "    <core_client_minor_version>20</core_client_minor_version>\n"
                     "    <core_client_release>5</core_client_release>\n"
                     "    <get_file_size>%s</get_file_size>\n"
                     "</data_server_request>\n" % f.name).encode()
                st, body = http_request(env, "POST", url, q)
                m = re.search(rb"<status>\s*(-?\d+)\s*</status>", body)
                if st != 200 or not m or int(m.group(1)) != 0:
                    raise OSError("get_file_size: HTTP %d %r" % (st, body[:200]))
                fs = re.search(rb"<file_size>\s*(\d+)\s*</file_size>", body)
                offset = int(fs.group(1)) if fs else 0
                env.stats.add("get_file_size")
                if offset:
                    env.stats.add("upload_resumed")
                if offset >= len(f.data):
                    return True
            header = ("<data_server_request>\n"
                      "    <core_client_major_version>7</core_client_major_version>\n"
                      "    <core_client_minor_version>20</core_client_minor_version>\n"
                      "    <core_client_release>5</core_client_release>\n"
                      "<file_upload>\n<file_info>\n<name>%s</name>\n"
                      "<xml_signature>\n%s</xml_signature>\n"
                      "<max_nbytes>%.0f</max_nbytes>\n</file_info>\n"
                      "<nbytes>%.0f</nbytes>\n<md5_cksum>%s</md5_cksum>\n"
                      "<offset>%.0f</offset>\n<data>\n"
                      % (f.name, f.signature, f.max_nbytes, len(f.data), f.md5, offset)).encode()
            if (len(f.data) >= FILE_SIZE_CHECK and offset == 0 and self.kind == "normal"
                    and self.rnd.random() < self.a.cut_uploads):
                cut_upload(env, url, header, f.data)
                env.stats.add("uploads_cut")
                return False
            st, body = http_request(env, "POST", url, header + f.data[offset:])
        except OSError as e:
            env.stats.add("upload_transient")
            env.log("%s: upload of %s: %s" % (self.name, f.name, e))
            f.next_try = time.time() + 1
            return False
        m = re.search(rb"<status>\s*(-?\d+)\s*</status>", body)
        code = int(m.group(1)) if st == 200 and m else 1
        if code == 0:
            env.stats.add("uploads")
            return True
        if code == -1:
            raise ValueError(body.decode("utf-8", "replace").strip())
        env.stats.add("upload_transient")
        f.upload_errors += 1
        f.next_try = time.time() + min(0.5 * 2 ** f.upload_errors, 8)
        return False

    def finish(self, r):
        """Upload r's outputs; ready to report when all are up."""
        for fname, _ in r.outs:
            f = self.files.get(fname)
            if f is None or f.uploaded or not f.upload_urls:
                continue
            try:
                if not self.upload(f):
                    return False
                f.uploaded = True
            except ValueError as e:
                self.env.stats.add("upload_refused")
                if self.kind not in ("garbage", "liar"):
                    self.env.stats.anomaly(self, "upload of %s refused: %s" % (fname, e))
                r.state, r.exit_status, r.ready = ST_UPLOAD_FAILED, EXIT_UPLOAD, True
                return True
        r.state, r.ready = ST_UPLOADED, True
        self.env.stats.add("completed")
        return True

    def work(self):
        """Run what can run, upload what is done; True if any result is ready to report."""
        now = self.env.server_now()
        progress = True
        while progress:
            progress = False
            for r in list(self.results.values()):
                if r.state == 0 and r.deadline and r.deadline < now:
                    # client: not started and the deadline has passed
                    r.state, r.exit_status, r.ready = ST_ABORTED, EXIT_UNSTARTED_LATE, True
                    self.env.stats.add("aborted_late")
                    progress = True
                elif r.state == 0 and self.compute(r):
                    progress = True
            for r in list(self.results.values()):
                if r.state == 2 and self.finish(r):
                    progress = True
        # outputs of results done: non-sticky ones are dropped after upload (kept here
        # until the ack: the report names them)
        return any(r.ready for r in self.results.values())

    # --- the host's life ---

    def is_segment(self, r):
        w = self.wus.get(r.wu)
        return w is not None and any(o == "state_in" for _, o in w["refs"])

    def vanish_now(self, point):
        """A vanishing host goes while it holds segments: early (the sequence
        restarts from its initial state) or once it holds segment 3 or 4 (from
        the state segment 2 uploaded, which the relocator publishes)."""
        if self.kind != "vanish" or self.came_back or self.dormant or self.vanish_mode != point:
            return False
        segs = [r for r in self.results.values() if self.is_segment(r)]
        if self.vanish_late:
            segs = [r for r in segs if int(re.search(r"_s(\d+)_0$", r.name).group(1)) >= 3]
        if not segs:
            return False
        self.dormant = True
        self.env.stats.add("vanished")
        self.env.log("%s: vanishes (%s) holding %d results" % (self.name, point, len(self.results)))
        return True

    def sleep_dormant(self):
        """A vanished host waits; one that returns does so once the server's clock jumped."""
        while not self.env.stop.is_set():
            if self.returns and self.env.offset() > self.env.epoch:
                self.dormant = False
                self.came_back = True
                self.env.stats.add("came_back")
                self.env.log("%s: comes back" % self.name)
                return
            self.env.stop.wait(0.5)

    def run(self):
        try:
            self.live()
        except Exception as e:     # a bug in the simulator must not pass for a server's
            import traceback
            self.env.stats.anomaly(self, "simulator crashed: %s\n%s" % (e, traceback.format_exc()))

    def live(self):
        env = self.env
        env.stop.wait(self.rnd.random() * 2)
        while not env.stop.is_set():
            if self.dormant:
                self.sleep_dormant()
                continue
            wait = self.next_rpc - time.time()
            if wait > 0:
                env.stop.wait(min(wait, 1))
                continue
            self.rpc()
            if self.vanish_now("before_compute"):
                continue
            ready = self.work()
            self.publish()
            if ready and self.vanish_now("before_report"):
                continue
            if ready:
                self.next_rpc = max(self.next_rpc, time.time() + 0.05)
            elif not self.results:
                # nothing held: ask again a little later (a user's "update")
                self.next_rpc = max(self.next_rpc, time.time() + self.a.idle_poll * (0.5 + self.rnd.random()))
            else:
                self.next_rpc = max(self.next_rpc, time.time() + 0.5)


class FlakyHost(Host):
    def fails(self, r):
        return self.rnd.random() < 0.15


class SlowHost(Host):
    def elapsed_for(self, r, segment):
        # a segment slower than the sequences' max_result_time: relocated as too slow
        return self.a.max_result_time * 2 if segment else 1.5


GARBAGE_STDERR = (b"<stderr_txt>\nbinary \x00\x01\x02\x1b[31m \xff\xfe\xc3\x28 \xc0\xaf"
                  b" \xef\xbf\xbe \xed\xa0\x80 nul\x00 end\n</stderr_txt>\n")
GARBAGE_NUMBERS = ["1e30", "-1e30", "nan", "inf", "-inf", "1e400", "99999999999999999999",
                   "0x7fffffff", "", "  5  ", "5abc", "-2147483649"]
NONSENSE_NAMES = ["../../etc/passwd", "' OR 1=1 --", "x" * 300, "&lt;bad&gt;", "r\u00e9sultat_\U0001f642",
                  "chaos_j0000_99", "chaos_s000_b9_s9_0", "%s%n%x", "NULL", "\u202e\u200b"]


class GarbageHost(Host):
    """Reports garbage: a malformed request before each real one, binary stderr, numbers out of
    range, results with nonsense names. Its outputs are right (a quorum of
    one trusts the host), so none of this may cost anyone else their work."""

    def rpc(self):
        # a malformed request before each of its real ones
        if self.hostid:
            self.rpc_send(self.malformed(), False)
            self.env.stats.add("garbage_malformed")
        self.rpc_send(self.request(self.want_work()), self.want_work())

    def malformed(self):
        c = self.rnd.randrange(8)
        good = self.request(False)
        if c == 0:
            return good[:self.rnd.randrange(20, len(good))]                 # cut short
        if c == 1:
            return bytes(self.rnd.getrandbits(8) for _ in range(self.rnd.randrange(1, 3000)))
        if c == 2:
            return b""
        if c == 3:
            return b"<scheduler_request>" + b"<a>" * 5000 + b"</scheduler_request>"
        if c == 4:
            return good.replace(b"</scheduler_request>", b"<result><name></name></result></scheduler_request>")
        if c == 5:
            return b"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;'>]>" + good.replace(b"<rpc_seqno>", b"<rpc_seqno>&b;")
        if c == 6:
            return good.replace(b"<authenticator>", b"<authenticator>\xff\x00")
        return good.replace(b"<host_info>", b"<host_info><domain_name>" + b"D" * 5000 + b"</domain_name>")

    def host_info(self):
        hi = super().host_info()
        if self.hostid and self.nrpc % 3 == 2:
            hi = hi.replace("<p_fpops>1000000000.000000", "<p_fpops>" + self.rnd.choice(GARBAGE_NUMBERS))
            hi = hi.replace("<m_nbytes>8000000000.000000", "<m_nbytes>" + self.rnd.choice(GARBAGE_NUMBERS))
        return hi

    def stderr_text(self, r):
        # one result in three also closes its CDATA early ("]]>" in stderr): as the
        # real client, the host sends that same report in every request until acked
        cut = "]]> after the CDATA\n" if int(md5hex(r.name.encode()), 16) % 3 == 0 else ""
        return GARBAGE_STDERR.decode("utf-8", "surrogateescape") + cut

    def apply_reply(self, root):
        super().apply_reply(root)
        # no request_delay holds it back
        self.next_rpc = time.time() + 0.5 + self.rnd.random()

    def rpc_failed(self):
        self.next_rpc = time.time() + 0.5 + self.rnd.random()

    def result_xml(self, r, extra_files=""):
        x = super().result_xml(r, extra_files)
        if self.nrpc % 2 == 0:
            x = re.sub(r"<final_cpu_time>[^<]*", "<final_cpu_time>" + self.rnd.choice(GARBAGE_NUMBERS), x)
            x = re.sub(r"<final_peak_disk_usage>[^<]*",
                       "<final_peak_disk_usage>" + self.rnd.choice(GARBAGE_NUMBERS), x)
        return x

    def extra_request(self):
        out = []
        for name in self.rnd.sample(NONSENSE_NAMES, 3):
            out.append("<result>\n    <name>%s</name>\n    <state>%s</state>\n"
                       "    <exit_status>%s</exit_status>\n    <final_elapsed_time>%s</final_elapsed_time>\n"
                       "<stderr_out><![CDATA[%s]]></stderr_out>\n</result>\n"
                       % (name, self.rnd.choice(["5", "3", "1e9", "-7"]), self.rnd.choice(GARBAGE_NUMBERS),
                          self.rnd.choice(GARBAGE_NUMBERS), GARBAGE_STDERR.decode("utf-8", "surrogateescape")))
        out.append("<file_info><name>%s</name><nbytes>%s</nbytes><status>%s</status></file_info>\n"
                   % (self.rnd.choice(NONSENSE_NAMES), self.rnd.choice(GARBAGE_NUMBERS),
                      self.rnd.choice(GARBAGE_NUMBERS)))
        return "".join(out)


class LiarHost(Host):
    """Reports for results it does not hold: names of results sent to other
    hosts, and in its own reports file_infos that name other results'
    outputs and other sequences' state files."""

    def others(self):
        names = []
        for h in self.env.hosts:
            if h is not self:
                names.extend(h.published)
        return names

    def foreign_files(self):
        """file_infos naming other results' outputs: two already on the server
        (no md5: the validator would take them), and a state another host keeps."""
        others = self.others()
        up = [(r, f, o) for r, outs in others for f, o, u in outs if u]
        kept = [(r, f, o) for r, outs in others for f, o, u in outs if not u and o == "state_out"]
        pick = self.rnd.sample(up, min(2, len(up))) + self.rnd.sample(kept, min(1, len(kept)))
        out = []
        for _, fname, open_name in pick:
            size = STATE_BYTES if open_name == "state_out" else 65
            out.append(self.file_report(fname, size, 1e9, "", "http://x/file_upload_handler"))
            self.env.stats.add("liar_foreign_files")
        return "".join(out)

    def result_xml(self, r, extra_files=""):
        return super().result_xml(r, self.foreign_files())

    def extra_request(self):
        out = []
        others = self.others()
        for rname, outs in self.rnd.sample(others, min(3, len(others))):
            fake = Result(rname, "", 0, [(f, o) for f, o, _ in outs])
            fake.state = self.rnd.choice([ST_UPLOADED, ST_UPLOADED, ST_COMPUTE_ERROR])
            fake.exit_status = 0 if fake.state == ST_UPLOADED else 1
            files = "".join(self.file_report(f, 65, 1e9, "", "http://x/file_upload_handler")
                            for f, _, _ in outs)
            out.append(Host.result_xml(self, fake, files))
            self.env.stats.add("liar_foreign_reports")
        return "".join(out)


KINDS = {"normal": Host, "vanish": Host, "flaky": FlakyHost, "slow": SlowHost,
         "garbage": GarbageHost, "liar": LiarHost}


def write_status(env, path):
    """hosts.tsv: index, kind, hostid, quiet (a host the test counts as
    holding its work until a deadline: a vanished one, or a bad one)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for h in env.hosts:
            quiet = h.dormant or h.kind in ("garbage", "liar")
            f.write("%d\t%s\t%d\t%d\n" % (h.index, h.kind, h.hostid, 1 if quiet else 0))
    os.replace(tmp, path)


def write_stats(env, t0):
    """stats.json: counts, and what the well-behaved hosts found wrong."""
    with env.stats.lock:
        s = dict(env.stats.c)
        s["anomaly_list"] = list(env.stats.anomalies)
    s["hosts"] = len(env.hosts)
    s["seconds"] = round(time.time() - t0, 1)
    s["per_host"] = ["%s hostid %d: %d RPCs, %d jobs, %d held%s" % (h.name, h.hostid, h.nrpc, h.jobs_got,
                     len(h.published), ", dormant" if h.dormant else "") for h in env.hosts]
    path = os.path.join(env.a.dir, "stats.json")
    with open(path + ".tmp", "w") as f:
        json.dump(s, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def cmd_run(a):
    env = Env(a)
    env.sched_url = find_scheduler(env)
    kinds = []
    for spec in a.hosts.split(","):
        kind, n = spec.split(":")
        kinds += [kind] * int(n)
    for i, kind in enumerate(kinds):
        env.hosts.append(KINDS[kind](env, i, kind))
    t0 = time.time()
    for h in env.hosts:
        h.start()
    status = os.path.join(a.dir, "hosts.tsv")
    n = 0
    while not os.path.exists(a.stop_file):
        write_status(env, status)
        if n % 10 == 0:
            write_stats(env, t0)
        n += 1
        time.sleep(0.5)
    env.stop.set()
    for h in env.hosts:
        h.join(60)
    write_status(env, status)
    write_stats(env, t0)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-work")
    m.add_argument("--dir", required=True)
    m.add_argument("--jobs", type=int, default=1000)
    m.add_argument("--sequences", type=int, default=200)
    m.add_argument("--segments", type=int, default=4)
    m.add_argument("--quorum2-tenths", type=int, default=3, help="jobs in ten with quorum 2")
    m.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("run")
    r.add_argument("--url", required=True, help="the master URL")
    r.add_argument("--auth", required=True)
    r.add_argument("--dir", required=True)
    r.add_argument("--stop-file", required=True)
    r.add_argument("--offset-file", required=True)
    r.add_argument("--hosts", default="normal:24,vanish:4,flaky:1,slow:1,garbage:1,liar:1")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--max-http", type=int, default=6, help="HTTP requests at once, all hosts")
    r.add_argument("--buffer", type=int, default=12, help="results a host holds before it stops asking")
    r.add_argument("--req-seconds", type=float, default=8)
    r.add_argument("--idle-poll", type=float, default=2)
    r.add_argument("--delay-scale", type=float, default=1 / 60)
    r.add_argument("--cut-uploads", type=float, default=0.05)
    r.add_argument("--bad-host-jobs", type=int, default=10)
    r.add_argument("--max-result-time", type=float, default=3600)
    r.add_argument("--verbose", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("--manifest", required=True)
    c.add_argument("--project", required=True)
    c.add_argument("--segments", required=True)
    c.add_argument("--state-every", type=int, default=2)
    a = p.parse_args()
    return {"make-work": cmd_make_work, "run": cmd_run, "check": cmd_check}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
