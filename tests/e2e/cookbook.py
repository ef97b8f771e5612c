"""The Cookbook's recipes (docs/cookbook.md) as the tests run them: the
gdb commands a user types, read from the document itself, so that a
recipe that stops working fails its test."""
import os
import re
from typing import List

from gtplib import REPO

COOKBOOK = os.path.join(REPO, "docs", "cookbook.md")


def recipe(title: str) -> List[str]:
    """The gdb commands of the Cookbook recipe "## title", in order."""
    with open(COOKBOOK) as f:
        book = f.read()
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), book, re.M | re.S)
    assert m, "no recipe %r in docs/cookbook.md" % title
    m = re.search(r"^```\n(.*?)^```$", m.group(1), re.M | re.S)
    assert m, "recipe %r has no gdb session" % title
    cmds = []
    for line in m.group(1).splitlines():
        # as typed: gdb takes no comment after a command ("print 1  # x"
        # is an error), so a recipe must not have one either
        c = re.match(r"^(?:\(gdb\)|>) (.*)$", line)
        if c:
            cmds.append(c.group(1))
    return cmds
