#!/usr/bin/env python3
"""Read a db_dump export as a stats site would (gzip + an XML parser).

  stats_read.py summary DIR          every file parses; per table: count and credit sum;
                                     then tables.xml's values, one "tables NAME VALUE" a line
  stats_read.py field DIR FILE ID EL the text of element EL of the record with id ID in
                                     FILE ("<absent>" without EL, "<no record>" without ID)
  stats_read.py raw DIR FILE         the file's XML text, decompressed
"""
import gzip
import sys
import xml.etree.ElementTree as ET

DECL = '<?xml version="1.0" encoding="utf-8"?>'
FILES = {"user.gz": "users", "team.gz": "teams", "host.gz": "hosts",
         "user_deleted.gz": "users_deleted", "host_deleted.gz": "hosts_deleted"}


def text_of(d, name):
    if name.endswith(".gz"):
        with gzip.open(f"{d}/{name}", "rb") as f:
            data = f.read()
    else:
        with open(f"{d}/{name}", "rb") as f:
            data = f.read()
    return data.decode("utf-8")


def parse(d, name, root):
    text = text_of(d, name)
    if not text.startswith(DECL):
        sys.exit(f"{name}: does not start with {DECL}")
    tree = ET.fromstring(text.encode("utf-8"))
    if tree.tag != root:
        sys.exit(f"{name}: root <{tree.tag}>, not <{root}>")
    return tree


def summary(d):
    for name, root in FILES.items():
        tree = parse(d, name, root)
        ids = [int(r.findtext("id")) for r in tree]
        if ids != sorted(set(ids)):
            sys.exit(f"{name}: ids not unique and ascending")
        if name.endswith("_deleted.gz"):
            print(f"{root} {len(ids)}")
            continue
        total = sum(float(r.findtext("total_credit")) for r in tree)
        if any(float(r.findtext("total_credit")) <= 0 for r in tree):
            sys.exit(f"{name}: a record without credit")
        print(f"{root} {len(ids)} {total:.6f}")
    tables = parse(d, "tables.xml", "tables")
    for el in tables:
        if el.tag == "applications":
            for a in el:
                print(f"tables application {a.findtext('name')}")
        elif len(el) == 0:
            print(f"tables {el.tag} {el.text}")


def field(d, name, rid, el):
    tree = parse(d, name, FILES[name])
    for r in tree:
        if r.findtext("id") == rid:
            e = r.find(el)
            if e is None:
                print("<absent>")
            else:
                sys.stdout.write((e.text or "") + "\n")
            return
    print("<no record>")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "summary":
        summary(*args)
    elif cmd == "field":
        field(*args)
    elif cmd == "raw":
        sys.stdout.write(text_of(*args))
    else:
        sys.exit(__doc__)
