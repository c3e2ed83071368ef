"""The mailed-link steps of t7060 in headless Chromium (as scenario.py's):

    mail.py reset_ask EMAIL          the sign-in page's "Forgot your password?"
    mail.py reset_follow LINK PW     the mailed link: a new password, twice
    mail.py refused LINK WORDS       the link refused, saying WORDS
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser  # noqa: E402
from scenario import URL, OUT, PATIENCE, check  # noqa: E402


def step_reset_ask(b, args):
    b.get(URL + "login")
    b.click("main p a")
    b.wait_url(lambda u: u.endswith("/get_passwd.php"))
    b.type("#email_addr", args[0])
    b.screenshot("20-reset-ask-%s.png" % args[1])
    b.click("main button[type=submit]")
    b.wait_url(lambda u: "is on its way" in b.source() or "could not" in b.source(), 30)
    b.screenshot("21-reset-asked-%s.png" % args[1])
    # what a person reads, the address taken out: the same for every address
    print("said: " + b.text("main").replace(args[0], "ADDRESS").replace("\n", " "))


def step_reset_follow(b, args):
    b.get(args[0])
    b.screenshot("22-reset-form.png")
    check("Choose a new password" in b.source(), "the link opens the new password form")
    b.type("#passwd", args[1])
    b.type("#passwd2", args[1])
    b.click("main button[type=submit]")
    b.wait_url(lambda u: "Password changed" in b.source() or "refused" in b.source(), 30)
    b.screenshot("23-reset-done.png")
    check("Password changed" in b.source(), "the new password is set")


def step_refused(b, args):
    b.get(args[0])
    b.screenshot("24-refused-%s.png" % args[2])
    check("Link refused" in b.source(), "the link is refused")
    check(args[1] in b.source(), "the page says: " + args[1])


STEPS = {"reset_ask": step_reset_ask, "reset_follow": step_reset_follow, "refused": step_refused}

if __name__ == "__main__":
    prof = os.path.join(OUT, "profile-" + os.environ.get("WEB_PROFILE", "a"))
    with Browser(OUT, PATIENCE, profile=prof) as b:
        STEPS[sys.argv[1]](b, sys.argv[2:])
