"""Steps of the web page test (t7040), each in a fresh headless Chromium
that keeps its cookies in a profile directory, as a person's browser would:

    scenario.py STEP [ARGS...]   with PROJECT_URL, WEB_OUT (screenshots) and
                                 WEB_PROFILE (the browser's profile name) set

Each step checks what a person would see, prints facts as "key: value"
lines for the shell test to compare with the database, and exits 1 on a
failed check.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402

URL = os.environ["PROJECT_URL"]
OUT = os.environ["WEB_OUT"]
PATIENCE = int(os.environ.get("WSEQ_TEST_PATIENCE", "4"))


def check(cond, what):
    if not cond:
        print("check failed: " + what)
        sys.exit(1)


def step_home(b, args):
    b.get(URL)
    b.screenshot("01-home.png")
    src = b.source()
    check("How to join" in src, "the home page says how to join")
    check('rel="boinc_scheduler"' in src, "the home page names the scheduler")
    b.get(URL + "server_status")
    b.screenshot("01-server-status.png")
    check("Server status" in b.source(), "the server status page")
    b.get(URL + "apps")
    b.screenshot("01-apps.png")


def fill_join(b, name, email, password):
    """The join form filled in, not yet sent."""
    b.get(URL + "join")
    b.type("#user_name", name)
    b.type("#email_addr", email)
    b.type("#passwd", password)
    b.type("#passwd2", password)


def step_join(b, args):
    name, email, password = args
    fill_join(b, name, email, password)
    b.screenshot("02-join-form.png")
    b.click("main button[type=submit]")
    url = b.wait_url(lambda u: u.endswith("/account"))
    check(url.endswith("/account"), "joining leads to the account page, not " + url)
    b.screenshot("03-account-new.png")
    check(not b.alert_open(), "no script ran")
    check(b.text("table.facts td") == name, "the name is shown as typed")


def step_logout(b, args):
    b.get(URL + "account")
    b.click("nav form button")
    url = b.wait_url(lambda u: u == URL)
    check(url == URL, "signing out leads home, not " + url)
    check("Sign in" in b.source(), "signed out")


def step_login(b, args):
    email, password = args[:2]
    b.get(URL + "login")
    b.type("#email_addr", email)
    b.type("#passwd", password)
    b.click("main button[type=submit]")
    if len(args) > 2 and args[2] == "wrong":
        b.wait_url(lambda u: "Wrong e-mail" in b.source(), 30)
        b.screenshot("04-login-refused.png")
        check(b.url().endswith("/login"), "a wrong password stays on the sign-in page")
        check("Wrong e-mail address or password" in b.source(), "a wrong password is said")
        return
    url = b.wait_url(lambda u: u.endswith("/account"))
    check(url.endswith("/account"), "signing in leads to the account page, not " + url)


def step_account(b, args):
    b.get(URL + "account")
    b.screenshot("05-account-credit.png")
    rows = b.source()
    check("Your account" in rows, "the account page")
    # the facts table: Name, E-mail, Member since, Total credit, ...
    total = b.text("table.facts tr:nth-child(4) td")
    print("total_credit: " + total.replace(",", ""))
    check("Completed and validated" in rows, "the validated task is listed")


def step_team_create(b, args):
    b.get(URL + "team_create")
    b.type("#name", args[0])
    b.type("#description", "We crunch <b>numbers</b> & more.")
    b.click("main button[type=submit]")
    url = b.wait_url(lambda u: "/team?id=" in u)
    check("/team?id=" in url, "founding leads to the team page, not " + url)
    b.screenshot("06-team-created.png")
    check(b.text("h1") == args[0], "the team page is titled with its name as typed")
    check("Leave this team" in b.source(), "the founder is a member")
    print("team_url: " + b.url())


def step_team_join(b, args):
    b.get(URL + "teams")
    b.type("#search", args[0][:5])
    b.click("main form button[type=submit]")
    b.wait_url(lambda u: "search=" in u)
    b.screenshot("07-team-search.png")
    b.click("table.teams td a")
    b.wait_url(lambda u: "/team?id=" in u)
    b.click("main form button[type=submit]")
    b.wait_url(lambda u: "Leave this team" in b.source())
    b.screenshot("08-team-joined.png")
    check("Leave this team" in b.source(), "joined")


def step_join_existing(b, args):
    """The join form with an address in use and its right password: no sign-in."""
    name, email, password = args
    fill_join(b, name, email, password)
    b.click("main button[type=submit]")
    b.wait_url(lambda u: "already an account" in b.source() or u.endswith("/account"), 30)
    b.screenshot("09-join-existing.png")
    check(not b.url().endswith("/account"), "the join form signed in to an existing account")
    check("already an account" in b.source(), "the join form says the address is taken")
    b.get(URL + "account")
    check("Please sign in" in b.source(), "nobody is signed in after the join form")


def step_session(b, args):
    """Signed in ("in") or not ("out"): what the account page shows."""
    b.get(URL + "account")
    b.screenshot("10-session-%s.png" % args[0])
    if args[0] == "in":
        check("Your account" in b.source(), "not signed in")
    else:
        check("Please sign in" in b.source(), "the session still signs in")


def step_csrf_planted(b, args):
    """A CSRF cookie planted by another page of the site, and its value in the form: refused."""
    planted = "0123456789abcdef" * 2
    path = "/" + URL.split("/", 3)[3]
    b.get(URL + "account")
    check("Your account" in b.source(), "signed in")
    b.add_cookie("wseq_csrf", planted, path)
    b.get(URL + "team_create")
    b.execute("document.querySelector('main form input[name=csrf]').value = arguments[0];",
              [planted])
    b.type("#name", args[0])
    b.click("main button[type=submit]")
    b.wait_url(lambda u: "Form refused" in b.source() or "/team?id=" in u, 30)
    b.screenshot("11-csrf-planted.png")
    check("Form refused" in b.source(), "a form with a planted token was taken")


def step_framed(b, args):
    """Another site's page framing the volunteers' pages: the browser shows nothing of them."""
    page = os.path.join(OUT, "framer.html")
    with open(page, "w") as f:
        f.write('<html><body><iframe width="900" height="700" src="%s"></iframe></body></html>'
                % (URL + args[0]))
    b.get("file://" + page)
    b.wait_url(lambda u: b.execute("return document.readyState") == "complete", 30)
    b.screenshot("12-framed.png")
    b.frame(0)
    inner = b.source()
    b.frame(None)
    check("Server status" not in inner, "the page was shown inside another site's frame")


def step_prefs(b, args):
    """prefs_edit.php?subset=SUBSET&venue=VENUE, fields set (NAME=VALUE; a checkbox
    1 or 0, clicked as a person would), saved: the page comes back without an error."""
    subset, venue = args[:2]
    b.get(URL + "prefs_edit.php?subset=%s&venue=%s" % (subset, venue))
    check("preferences" in b.text("h1"), "the preferences page")
    for nv in args[2:]:
        name, value = nv.split("=", 1)
        css = 'main form [name="%s"]' % name
        kind = b.execute("return document.querySelector(arguments[0]).type;", [css])
        if kind == "checkbox":
            on = b.execute("return document.querySelector(arguments[0]).checked;", [css])
            if on != (value == "1"):
                b.click(css)
        else:
            b.execute("document.querySelector(arguments[0]).value = '';", [css])
            b.type(css, value)
    b.screenshot("20-prefs-%s-%s.png" % (subset, venue or "default"))
    b.execute("window.wseqOld = true;")
    b.click("main button[type=submit]")
    b.wait_url(lambda u: b.execute("return window.wseqOld === undefined;"), 30)
    b.screenshot("21-prefs-%s-%s-saved.png" % (subset, venue or "default"))
    check('class="error"' not in b.source(), "the preferences were refused")
    check("no preferences of its own" not in b.source(), "the venue has its own now")


STEPS = {"prefs": step_prefs, "join_existing": step_join_existing, "session": step_session,
         "csrf_planted": step_csrf_planted, "framed": step_framed,
         "home": step_home, "join": step_join, "logout": step_logout, "login": step_login,
         "account": step_account, "team_create": step_team_create, "team_join": step_team_join}

if __name__ == "__main__":
    prof = os.path.join(OUT, "profile-" + os.environ.get("WEB_PROFILE", "a"))
    with Browser(OUT, PATIENCE, profile=prof) as b:
        STEPS[sys.argv[1]](b, sys.argv[2:])
