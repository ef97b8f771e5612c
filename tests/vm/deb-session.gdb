# The paper's Fig. 12 session (tests/e2e/demo.gdb) from an installed
# gtptrace-tools: the documented source line, then gtp-connect.
set trace-commands on
source /usr/share/gtptrace/gtp.py
python import gtpgdb; print("gtpgdb from %s" % gtpgdb.__file__)
gtp-connect
trace gtp_test_function if 2*counter1+3*counter2 > 0
actions
collect (2*counter1+3*counter2)
end
tstart
shell echo 10 > /proc/gtp_test
tstop
tstatus
tfind start
print 2*counter1+3*counter2
tfind
print 2*counter1+3*counter2
tfind
print 2*counter1+3*counter2
tfind none
detach
