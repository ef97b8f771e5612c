// SPDX-License-Identifier: GPL-2.0
/* Types for tests/strcond/test_strcond.py: a task_struct with the
 * kernel's comm[16], and a function whose arguments hold a char array
 * and a char pointer.  Never run: gdb only reads its DWARF. */
struct task_struct {
	int pid;
	long state;
	char comm[16];
};

struct holder {
	const char *name;
	int id;
};

struct task_struct task;

int f(struct task_struct *p, struct holder *h)
{
	return p->pid + (h != 0);
}

int main(void)
{
	return f(&task, 0);
}
