"""A private mail server for the tests: aiosmtpd on 127.0.0.1:PORT saving
each message it accepts as DIR/N.eml (N = 1, 2, ... in order of arrival,
after those DIR holds already,
written whole then renamed), with its envelope in DIR/N.env.

    smtpd.py PORT DIR        runs until killed
"""
import os
import sys
import time

from aiosmtpd.controller import Controller


class Saver:
    def __init__(self, d):
        self.d = d
        # a server started again goes on numbering where the last one stopped
        self.n = len([f for f in os.listdir(d) if f.endswith(".eml")])

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        base = os.path.join(self.d, str(self.n))
        with open(base + ".env.tmp", "w") as f:
            f.write("from %s\nto %s\n" % (envelope.mail_from, " ".join(envelope.rcpt_tos)))
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(base + ".env.tmp", base + ".env")
        os.rename(base + ".eml.tmp", base + ".eml")
        return "250 Message accepted for delivery"


def main():
    port, d = int(sys.argv[1]), sys.argv[2]
    os.makedirs(d, exist_ok=True)
    c = Controller(Saver(d), hostname="127.0.0.1", port=port)
    c.start()
    with open(os.path.join(d, "ready"), "w") as f:
        f.write("%d\n" % port)
    try:
        while True:
            time.sleep(3600)
    finally:
        c.stop()


if __name__ == "__main__":
    main()
