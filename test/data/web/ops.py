"""Steps of the ops pages test (t7050), each in a fresh headless Chromium
that keeps its cookies in a profile directory, as an admin's browser would:

    ops.py STEP [ARGS...]   with OPS_URL, WEB_OUT (screenshots) and
                            WEB_PROFILE (the browser's profile name) set

    login KEY NEXT          open NEXT (a page of the ops site), meet the sign-in
                            form, sign in with the authenticator KEY, land on NEXT
    login_pw EMAIL PASSWORD sign in with an e-mail address and a password
    refused FIELD VALUE     a sign-in with authenticator (FIELD "key") or
                            "email:password" (FIELD "pw") that must be refused
    shot REL NAME CSS...    open page REL, screenshot NAME.png, print "CSS: N"
                            (how many elements match) for each selector, and
                            the text of the rows a host's resources and the
                            versions of apps are shown in (facts)
    public URL NAME CSS...  the same for a page of the volunteers' site, no
                            sign-in (the host page)
    cancel REL NAME         open page REL and press its cancel button
    news TITLE TEXT NAME    post a news item on the news page (t7080); TEXT's
                            "\\n" is a line break
    mail SUBJECT BODY BUTTON NAME   fill in the "mail all users" form and press
                            BUTTON (mail_count or mail_send); print the outcome

Each step prints facts as "key: value" lines and exits 1 on a failed check.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, ELEMENT  # noqa: E402

URL = os.environ["OPS_URL"]
OUT = os.environ["WEB_OUT"]
PATIENCE = int(os.environ.get("WSEQ_TEST_PATIENCE", "4"))


def check(cond, what):
    if not cond:
        print("check failed: " + what)
        sys.exit(1)


def count(b, css):
    return len(b._call("POST", b._s("/elements"), {"using": "css selector", "value": css}))


def texts(b, css):
    els = b._call("POST", b._s("/elements"), {"using": "css selector", "value": css})
    return [b._call("GET", b._s("/element/%s/text" % e[ELEMENT])) for e in els]


def full_shot(b, name):
    """A screenshot of the whole page: the window made as tall as the page first."""
    try:
        h = b._call("POST", b._s("/execute/sync"),
                    {"script": "return document.documentElement.scrollHeight", "args": []})
        b._call("POST", b._s("/window/rect"), {"width": 1100, "height": min(int(h) + 140, 5000)})
    except Exception:  # noqa: BLE001 -- a short screenshot is still a screenshot
        pass
    b.screenshot(name)


def signed_in(b):
    return "Sign out" in b.source()


def step_login(b, args):
    key, nxt = args
    b.get(URL + nxt)
    check("Sign in" in b.text("h1"), "an ops page asks to sign in first")
    check(not signed_in(b), "nobody is signed in yet")
    b.screenshot("ops-01-sign-in.png")
    b.type("#authenticator", key)
    b.click("#login_key")
    url = b.wait_url(lambda u: u.endswith(nxt) and signed_in(b))
    check(url.endswith(nxt) and signed_in(b), "signing in leads back to " + nxt + ", not " + url)
    print("url: " + url)
    print("h1: " + b.text("h1"))


def step_login_pw(b, args):
    email, pw = args
    b.get(URL)
    b.type("#email_addr", email)
    b.type("#passwd", pw)
    b.click("#login_pw")
    b.wait_url(lambda u: signed_in(b))
    check(signed_in(b), "signed in with the e-mail address and password")
    print("h1: " + b.text("h1"))


def step_refused(b, args):
    field, value = args
    b.get(URL)
    if field == "key":
        b.type("#authenticator", value)
        b.click("#login_key")
    else:
        email, pw = value.split(":", 1)
        b.type("#email_addr", email)
        b.type("#passwd", pw)
        b.click("#login_pw")
    b.wait_url(lambda u: u.endswith("/login"))
    check(not signed_in(b), "the sign-in was refused")
    b.screenshot("ops-14-sign-in-refused.png")
    msg = " ".join(texts(b, "p.error"))
    print("error: " + msg)
    check(msg != "", "the page says why")


def step_shot(b, args):
    rel, name = args[0], args[1]
    b.get(URL + rel)
    check(signed_in(b), "signed in on " + rel)
    check(b.text("h1") != "Sign in", "the page " + rel + " is shown")
    full_shot(b, name + ".png")
    print("h1: " + b.text("h1"))
    for css in args[2:]:
        print("%s: %d" % (css, count(b, css)))
    for t in texts(b, "svg#timeline text.host"):
        print("host label: " + t)
    facts(b)


def facts(b):
    """The texts of a host's CPU and GPU cells and of the apps' version rows."""
    for t in texts(b, "tr.cpu td"):
        print("cpu: " + t)
    for t in texts(b, "tr.gpu td"):
        print("gpu: " + t)
    for t in texts(b, "table#versions tr"):
        print("version: " + " ".join(t.split()))


def step_public(b, args):
    url, name = args[0], args[1]
    b.get(url)
    full_shot(b, name + ".png")
    check(not b.alert_open(), "no script ran")
    print("h1: " + b.text("h1"))
    for css in args[2:]:
        print("%s: %d" % (css, count(b, css)))
    facts(b)


def step_cancel(b, args):
    rel, name = args
    b.get(URL + rel)
    b.click("#cancel")
    b.wait_url(lambda u: u.endswith("/cancel"))
    b.screenshot(name + ".png")
    print("outcome: " + b.text("#outcome"))


def step_news(b, args):
    title, text, name = args
    b.get(URL + "news")
    check(signed_in(b), "signed in on news")
    b.type("#title", title)
    b.type("#text", text.replace("\\n", "\n"))
    b.click("#news_submit")
    b.wait_url(lambda u: u.endswith("/news") and count(b, "table#news tr[id]") > 0)
    check(not b.alert_open(), "no script ran")
    full_shot(b, name + ".png")
    for t in texts(b, "table#news tr[id]"):
        print("item: " + " ".join(t.split()))


def step_mail(b, args):
    subject, body, button, name = args
    b.get(URL + "mail")
    check(signed_in(b), "signed in on mail")
    b.type("#subject", subject)
    b.type("#body", body)
    full_shot(b, name + "-form.png")
    b.click("#" + button)
    b.wait_url(lambda u: u.endswith("/mail_users"))
    full_shot(b, name + ".png")
    print("h1: " + b.text("h1"))
    print("outcome: " + " ".join(texts(b, "#outcome, #error")))


STEPS = {"news": step_news, "mail": step_mail,
         "login": step_login, "login_pw": step_login_pw, "refused": step_refused,
         "shot": step_shot, "public": step_public, "cancel": step_cancel}

if __name__ == "__main__":
    prof = os.path.join(OUT, "profile-" + os.environ.get("WEB_PROFILE", "a"))
    with Browser(OUT, PATIENCE, profile=prof) as b:
        STEPS[sys.argv[1]](b, sys.argv[2:])
