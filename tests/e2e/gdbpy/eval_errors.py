"""Evaluate gdb expressions that must be refused, and print how each one
went (sourced by e2e sessions, then `python print_eval_errors(...)`)."""
import gdb


def print_eval_errors(*exprs: str) -> None:
    """Print "refused=MESSAGE" for an expression gdb refused, "accepted=EXPR"
    for one it evaluated (a refusal that did not happen shows)."""
    for e in exprs:
        try:
            gdb.parse_and_eval(e)
        except gdb.error as err:
            print("refused=%s" % err)
        else:
            print("accepted=%s" % e)
