"""Open what a submitter or a host sent, as a volunteer's browser would
(t5190): headless Chromium first visits a page of the project (so the
project's cookies are in the browser), then the URL of the untrusted file.

    untrusted.py NAME PAGE_URL FILE_URL   with WEB_OUT (screenshots) set

The file's script, if it ran, replaces the document's text with
"wseq-untrusted-ran cookie=[...]". Prints "ran: yes|no", the cookie it
read, and the URL the browser shows; exits 1 when the script ran.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, WebDriverError  # noqa: E402

MARK = "wseq-untrusted-ran"


def main():
    name, page, url = sys.argv[1:4]
    out = os.environ["WEB_OUT"]
    work = os.path.join(out, name)
    os.makedirs(work, exist_ok=True)
    patience = int(os.environ.get("WSEQ_TEST_PATIENCE", "4"))
    with Browser(work, patience) as b:
        b.get(page)
        try:
            b.get(url)
        except WebDriverError as e:     # a navigation that became a download
            print("navigation: " + str(e))
        src = b.source()
        b.screenshot(name + ".png")
        ran = MARK in src
        print("ran: " + ("yes" if ran else "no"))
        if ran:
            print("read: " + src[src.index(MARK):][:200])
        print("shown: " + b.url())
        return 1 if ran else 0


if __name__ == "__main__":
    sys.exit(main())
