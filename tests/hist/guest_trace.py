"""Run in the guest by test_hist_plot.py: a real trace, printed base64-encoded.

Stock gdb against /proc/gtp: gtp_test_function's $rdi (counter1), $cpu_id
and $clock over the Fig. 11 loop, 300 calls pinned to CPU 0 and then 200
pinned to CPU 1; tsave to the guest's /tmp; the file goes to stdout
between GTP-TFILE-BEGIN / GTP-TFILE-END (the host cannot see guest files).
"""
import base64
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "e2e"))
from gtplib import GDB_HEAD, expect, gdb_script, reset_target  # noqa: E402

reset_target()
out = gdb_script(GDB_HEAD + """tvariable $cpu_id
tvariable $clock
trace gtp_test_function
actions
collect $rdi, $cpu_id, $clock
end
tstart
shell taskset -c 0 sh -c 'echo 300 > /proc/gtp_test'
shell taskset -c 1 sh -c 'echo 200 > /proc/gtp_test'
tstop
tsave /tmp/plot.tf
""", timeout=600)
expect(out, r"Trace state variable \$clock created")
with open("/tmp/plot.tf", "rb") as f:
    data = f.read()
print("GTP-TFILE-BEGIN")
print(base64.encodebytes(data).decode(), end="")
print("GTP-TFILE-END", flush=True)
