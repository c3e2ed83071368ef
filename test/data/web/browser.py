"""A small W3C WebDriver client (python3 standard library only) driving
Debian's headless Chromium through chromedriver, for the web page tests.

    with Browser(workdir) as b:
        b.get(url); b.type("#email_addr", "a@b.org"); b.click("button[type=submit]")
        b.screenshot("home.png"); assert "Welcome" in b.source()
"""
import base64
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class WebDriverError(Exception):
    pass


class Browser:
    def __init__(self, workdir, patience=4, profile=None):
        self.workdir = workdir
        self.port = free_port()
        self.patience = patience
        self.log = open(os.path.join(workdir, "chromedriver.log"), "w")
        self.proc = subprocess.Popen(
            ["chromedriver", "--port=%d" % self.port], stdout=self.log, stderr=self.log)
        self.base = "http://127.0.0.1:%d" % self.port
        self.session = None
        self._wait_up(30 * patience)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1100,900",
                         "--user-data-dir=" + (profile or os.path.join(workdir, "profile"))],
            }}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _wait_up(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            try:
                urllib.request.urlopen(self.base + "/status", timeout=5).read()
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        raise WebDriverError("chromedriver did not start")

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read().decode())["value"]
        except urllib.error.HTTPError as e:
            value = json.loads(e.read().decode()).get("value", {})
            raise WebDriverError("%s %s: %s" % (method, path, value.get("error", e.code)))

    def _s(self, path):
        return "/session/%s%s" % (self.session, path)

    def get(self, url):
        self._call("POST", self._s("/url"), {"url": url})

    def url(self):
        return self._call("GET", self._s("/url"))

    def source(self):
        return self._call("GET", self._s("/source"))

    def find(self, css):
        return self._call("POST", self._s("/element"),
                          {"using": "css selector", "value": css})[ELEMENT]

    def text(self, css):
        return self._call("GET", self._s("/element/%s/text" % self.find(css)))

    def type(self, css, text):
        self._call("POST", self._s("/element/%s/value" % self.find(css)), {"text": text})

    def click(self, css):
        self._call("POST", self._s("/element/%s/click" % self.find(css)), {})

    def wait_url(self, pred, seconds=30):
        """Wait (seconds times the patience) until pred(url) holds; the url at the end."""
        end = time.time() + seconds * self.patience
        url = self.url()
        while not pred(url) and time.time() < end:
            time.sleep(0.2)
            url = self.url()
        return url

    def execute(self, script, args=None):
        """Run a script in the page (WebDriver's, not the page's: CSP does not apply)."""
        return self._call("POST", self._s("/execute/sync"),
                          {"script": script, "args": args or []})

    def add_cookie(self, name, value, path="/"):
        """Set a cookie for the current page's site, as another page of the site could."""
        self._call("POST", self._s("/cookie"),
                   {"cookie": {"name": name, "value": value, "path": path}})

    def frame(self, index):
        """Look into the page's frame number index (None: back to the top page)."""
        self._call("POST", self._s("/frame"), {"id": index})

    def alert_open(self):
        try:
            self._call("GET", self._s("/alert/text"))
            return True
        except WebDriverError:
            return False

    def screenshot(self, name):
        png = base64.b64decode(self._call("GET", self._s("/screenshot")))
        with open(os.path.join(self.workdir, name), "wb") as f:
            f.write(png)

    def close(self):
        try:
            if self.session:
                self._call("DELETE", self._s(""))
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
