"""gtp-kernel-symbols on a kernel without BTF: gtpgdb.kernsyms pointed at
a directory with no vmlinux must warn and make functions by name only,
never refuse; a refusal (its gdb.error) is printed as "refused: ..." for
the test to fail on."""
import gdb
import gtpgdb.kernsyms


def kernel_symbols_without_btf(btf_dir: str) -> None:
    gtpgdb.kernsyms.BTF_DIR = btf_dir
    try:
        gdb.execute("gtp-kernel-symbols")
    except gdb.error as e:
        print("refused: %s" % e)
