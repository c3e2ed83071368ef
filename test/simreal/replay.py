#!/usr/bin/env python3
"""Play a wseq_sim scenario with scripted hosts against the real server (t8010).

The hosts are test/chaos/simhost.py's (the scheduler RPC and the uploads of
the BOINC 7.20 client), driven one event at a time in virtual time by the
rules of wseq_sim's engine (sim/sim_engine.c): a host is on, off or gone as
the scenario's avail and leave lines say; it runs its segments one at a time
in the order sent, each taking the segment's length (every host is as fast
as the reference host; transfers take no time); it asks for work at once
when it comes on idle and when it reports, and every rpc_hours while idle.
Before each event the server's clock (WSEQ_TIME_OFFSET_FILE) is set to the
start plus the event's virtual time; at each deadline of a segment not
reported the daemons run once (--daemons, a command: transitioner,
validator, assimilator, relocator with --one_pass), so the order of events
is the simulator's and nothing races.

Subcommands:
  make-work   initial states and create_sequence's stdin for the scenario
  run         play the scenario; writes hosts.tsv (index, hostid)
  log         the decision log of the real run, from the database's rows,
              in wseq_sim --decision_log's format (a send's time in minutes
              from the start, rounded: the server's clock is a second or so
              behind a virtual event's, never 30)
"""

import argparse
import heapq
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chaos"))
import simhost  # noqa: E402

HOUR = 3600.0
DAY = 86400.0


def load_scenario(path):
    """The keys the driver needs, and the script in the order of its lines."""
    sc = {"rpc_hours": 1.0, "high_water": 2, "script": []}
    with open(path) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if not w:
                continue
            if w[0] == "avail":
                sc["script"].append((int(w[1]) - 1, "on", float(w[2])))
                sc["script"].append((int(w[1]) - 1, "off", float(w[3])))
            elif w[0] == "leave":
                sc["script"].append((int(w[1]) - 1, "leave", float(w[2])))
            elif len(w) == 2:
                sc[w[0]] = w[1]
    return sc


def seq_name(i):
    return "sr_s%02d" % (i + 1)


def cmd_make_work(a):
    sc = load_scenario(a.scenario)
    os.makedirs(os.path.join(a.dir, "states"), exist_ok=True)
    with open(os.path.join(a.dir, "sequences.stdin"), "w") as out:
        for s in range(int(sc["sequences"])):
            path = os.path.join(a.dir, "states", seq_name(s) + "_init")
            with open(path, "wb") as f:
                f.write(simhost.hashlib.shake_256(b"simreal %d" % s).digest(simhost.STATE_BYTES))
            out.write('--seq_name %s --command_line "--state --seq %d" %s\n' % (seq_name(s), s, path))
    return 0


class ReplayHost(simhost.Host):
    """A host whose time is the driver's: it computes when told."""

    def __init__(self, env, index, segment_s):
        super().__init__(env, index, "normal")
        self.name = "simreal%02d" % (index + 1)
        self.cpid = simhost.hashlib.md5(("simreal host %d" % index).encode()).hexdigest()
        self.segment_s = segment_s
        self.on = False
        self.gone = False
        self.gen = 0
        self.rpc_at = float("inf")
        self.head = None        # the result it computes, its name
        self.left = 0.0         # seconds of it left
        self.since = 0.0

    def want_work(self):
        return True

    def elapsed_for(self, r, segment):
        return self.segment_s

    def queue(self):
        """Results to run, in the order sent."""
        return [r for r in self.results.values() if r.state == 0]


class Driver:
    def __init__(self, a):
        self.a = a
        self.sc = load_scenario(a.scenario)
        sc = self.sc
        self.segment_s = float(sc["segment_days"]) * DAY
        self.length_s = float(sc["length_days"]) * DAY
        self.rpc_s = float(sc["rpc_hours"]) * HOUR
        self.horizon = float(sc["horizon_days"]) * DAY
        ns = dict(url=a.url, auth=a.auth, seed=1, max_http=1, delay_scale=0, cut_uploads=0,
                  buffer=1000, req_seconds=1e7, verbose=a.verbose, bad_host_jobs=0,
                  offset_file=a.offset_file, idle_poll=1, max_result_time=0)
        self.env = simhost.Env(argparse.Namespace(**ns))
        self.env.sched_url = simhost.find_scheduler(self.env)
        self.hosts = [ReplayHost(self.env, i, self.segment_s) for i in range(int(sc["hosts"]))]
        self.env.hosts = self.hosts
        self.q = []
        self.nq = 0
        self.now = 0.0
        self.t0 = float(int(time.time()))
        self.deadlines = {}     # result name -> host
        self.passes = 0

    def push(self, t, kind, hi, gen=0, arg=None):
        heapq.heappush(self.q, (t, self.nq, kind, hi, gen, arg))
        self.nq += 1

    def set_clock(self):
        off = self.t0 + self.now - time.time()
        tmp = self.a.offset_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%.3f\n" % off)
        os.replace(tmp, self.a.offset_file)

    def log(self, text):
        if self.a.verbose:
            sys.stderr.write("%9.1f h %s\n" % (self.now / HOUR, text))

    # --- the host model of sim_engine.c ---

    def schedule_rpc(self, h, after):
        t = self.now + after
        if t >= h.rpc_at:
            return
        h.rpc_at = t
        self.push(t, "rpc", h.index, h.gen)

    def start_head(self, h):
        """The first result of its list starts (download: no time)."""
        q = h.queue()
        h.head = q[0].name if q else None
        h.left = self.segment_s
        h.since = self.now
        if h.head and h.on:
            self.push(self.now + h.left, "done", h.index, h.gen, h.head)

    def progress(self, h):
        if h.on and h.head:
            h.left = max(h.left - (self.now - h.since), 0.0)
        h.since = self.now

    def rpc(self, h):
        before = set(h.results)
        h.rpc()
        if h.hostid == 0:
            raise SystemExit("replay: %s got no hostid" % h.name)
        for name, r in h.results.items():
            if name not in before:
                self.deadlines[name] = h.index
                self.push(r.deadline - self.t0 + 1, "deadline", h.index, 0, name)
                self.log("%s got %s" % (h.name, name))
        if h.head is None and h.queue():
            self.start_head(h)
        if h.head is None:
            self.schedule_rpc(h, self.rpc_s)

    def done(self, h):
        """The head is computed and uploaded: report it at once."""
        r = h.results[h.head]
        if not h.compute(r) or r.state != 2 or not h.finish(r):
            raise SystemExit("replay: %s could not compute or upload %s (state %d)"
                             % (h.name, r.name, r.state))
        self.log("%s done %s" % (h.name, r.name))
        self.start_head(h)
        self.schedule_rpc(h, 0)

    def daemons(self):
        self.passes += 1
        rc = subprocess.call(self.a.daemons, shell=True)
        if rc:
            raise SystemExit("replay: the daemons' pass failed (%d)" % rc)

    def dispatch(self, kind, h, gen, arg):
        if kind == "on":
            if h.gone or h.on:
                return
            h.on = True
            h.since = self.now
            if h.head:
                self.push(self.now + h.left, "done", h.index, h.gen, h.head)
            else:
                self.schedule_rpc(h, 0)
        elif kind == "off":
            if h.gone or not h.on:
                return
            self.progress(h)
            h.on = False
            h.gen += 1
            h.rpc_at = float("inf")
        elif kind == "leave":
            if not h.gone:
                h.gone = True
                h.on = False
                h.gen += 1
                h.rpc_at = float("inf")
                self.log("%s leaves" % h.name)
        elif kind == "rpc":
            if h.on and not h.gone and gen == h.gen and self.now == h.rpc_at:
                h.rpc_at = float("inf")
                self.rpc(h)
        elif kind == "done":
            if h.on and not h.gone and gen == h.gen and h.head == arg:
                self.done(h)
        elif kind == "deadline":
            r = h.results.get(arg)
            if r is not None and not r.ready:
                self.log("deadline of %s: the daemons run" % arg)
                self.daemons()

    def run(self):
        for hi, kind, hours in self.sc["script"]:
            self.push(hours * HOUR, kind, hi)
        while self.q:
            t, _, kind, hi, gen, arg = heapq.heappop(self.q)
            if t > self.horizon:
                break
            self.now = t
            self.set_clock()
            self.dispatch(kind, self.hosts[hi], gen, arg)
            if self.env.stats.anomalies:
                raise SystemExit("replay: " + "; ".join(self.env.stats.anomalies))
        self.daemons()
        with open(os.path.join(self.a.dir, "t0"), "w") as f:
            f.write("%.0f\n" % self.t0)
        with open(os.path.join(self.a.dir, "hosts.tsv"), "w") as f:
            for h in self.hosts:
                f.write("%d\t%d\n" % (h.index + 1, h.hostid))
        print("replay: %d events, %d RPCs, %d daemon passes, %.1f virtual hours"
              % (self.nq, self.env.stats.c.get("rpcs", 0), self.passes, self.now / HOUR))
        return 0


def cmd_run(a):
    return Driver(a).run()


def cmd_log(a):
    """The decision log from the TSVs the test dumps: hosts.tsv (index,
    hostid; t0 beside it, the server time of virtual 0); results (sequence name, result name, hostid, sent_time,
    outcome); files (sequence name, file name, nbytes of uploaded ones);
    sequences (name, state, the branches' first seqnos as b:k,...)."""
    host = {}
    with open(os.path.join(os.path.dirname(a.hosts), "t0")) as f:
        t0 = float(f.read())
    with open(a.hosts) as f:
        for line in f:
            i, hid = line.split()
            host[int(hid)] = int(i)
    seqno = lambda name: int(name[len("sr_s"):]) if name.startswith("sr_s") else 0
    up = {}
    with open(a.files) as f:
        for line in f:
            seq, name, nbytes = line.rstrip("\n").split("\t")
            # S_b<b>_s<k>_state / _answer
            parts = name.rsplit("_", 3)
            key = (seq, int(parts[1][1:]), int(parts[2][1:]))
            up.setdefault(key, {"state": 0, "answer": 0})[parts[3]] += int(float(nbytes))
    out = []
    what = {1: "done", 4: "late", 5: "retired", 3: "error", 6: "invalid"}
    with open(a.results) as f:
        for line in f:
            seq, name, hid, sent, outcome = line.rstrip("\n").split("\t")
            if int(sent) == 0:
                continue
            parts = name.rsplit("_", 3)
            b, k = int(parts[1][1:]), int(parts[2][1:])
            pre = "seq %d branch %d seg %d host %d " % (seqno(seq), b, k, host.get(int(hid), 0))
            out.append(pre + "sent at %d" % int((int(sent) - t0) / 60.0 + 0.5))
            w = what.get(int(outcome), "outcome%s" % outcome)
            if w == "done":
                u = up.get((seq, b, k), {"state": 0, "answer": 0})
                w += " state %d answer %d" % (u["state"], u["answer"])
            out.append(pre + w)
    with open(a.sequences) as f:
        for line in f:
            seq, state, branches = line.rstrip("\n").split("\t")
            for bk in branches.split(","):
                b, k = map(int, bk.split(":"))
                if b > 0:
                    out.append("seq %d relocated branch %d from %d" % (seqno(seq), b, k))
            if int(state) == 1:
                out.append("seq %d ended" % seqno(seq))
            elif int(state) == 2:
                out.append("seq %d failed" % seqno(seq))
    for line in sorted(out):
        print(line)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-work")
    m.add_argument("--dir", required=True)
    m.add_argument("--scenario", required=True)
    r = sub.add_parser("run")
    r.add_argument("--url", required=True, help="the master URL")
    r.add_argument("--auth", required=True)
    r.add_argument("--dir", required=True)
    r.add_argument("--scenario", required=True)
    r.add_argument("--offset-file", required=True)
    r.add_argument("--daemons", required=True, help="a shell command: one pass of the daemons")
    r.add_argument("--verbose", action="store_true")
    g = sub.add_parser("log")
    g.add_argument("--hosts", required=True)
    g.add_argument("--results", required=True)
    g.add_argument("--files", required=True)
    g.add_argument("--sequences", required=True)
    a = p.parse_args()
    return {"make-work": cmd_make_work, "run": cmd_run, "log": cmd_log}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
