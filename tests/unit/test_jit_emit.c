// SPDX-License-Identifier: GPL-2.0
/*
 * test_jit_emit.c - the x86-64 encoders (jit/x86_emit.c), each checked by
 * disassembling its bytes with capstone.  The register cases are the ones
 * where encodings differ: r8-r15 (REX.R/REX.B), rsp/r12 as a base (SIB),
 * rbp/r13 as a base (forced displacement), sil/dil (REX for byte regs),
 * imm8 versus imm32 forms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "x86_emit.h"
#include "user_disasm.h"

static u8 buf[64];
static char text[1024];

static const char *dis(u8 *end)
{
	int n = user_disasm(buf, end - buf, false, text, sizeof(text));

	assert_int_equal(n, 1);		/* exactly one insn, all bytes used */
	text[strlen(text) - 1] = 0;	/* drop the newline */
	return text;
}

#define CHECK(call, want) do {				\
	u8 *prog = buf;					\
	call;						\
	assert_string_equal(dis(prog), want);		\
} while (0)

static void test_mov(void **state)
{
	CHECK(emit_mov_rr(&prog, X86_RAX, X86_RSI), "mov rax, rsi");
	CHECK(emit_mov_rr(&prog, X86_R10, X86_R8), "mov r10, r8");
	CHECK(emit_mov_rr(&prog, X86_RBX, X86_RDI), "mov rbx, rdi");
	CHECK(emit_mov_rr32(&prog, X86_RCX, X86_RDX), "mov ecx, edx");
	CHECK(emit_mov_rr32(&prog, X86_R9, X86_R9), "mov r9d, r9d");
}

static void test_mov_rr_same_is_empty(void **state)
{
	u8 *prog = buf;

	emit_mov_rr(&prog, X86_R8, X86_R8);
	assert_ptr_equal(prog, buf);
}

static void test_mov_imm(void **state)
{
	CHECK(emit_mov_imm(&prog, X86_RAX, 0), "xor eax, eax");
	CHECK(emit_mov_imm(&prog, X86_R10, 0), "xor r10d, r10d");
	CHECK(emit_mov_imm(&prog, X86_RSI, 0x12345678), "mov esi, 0x12345678");
	CHECK(emit_mov_imm(&prog, X86_R8, 0xffffffff), "mov r8d, 0xffffffff");
	CHECK(emit_mov_imm(&prog, X86_RCX, -2ULL), "mov rcx, -2");
	CHECK(emit_mov_imm(&prog, X86_R9, 0x123456789aULL),
	      "movabs r9, 0x123456789a");
}

static void test_mov_imm_sizes(void **state)
{
	u8 *prog = buf;

	emit_mov_imm(&prog, X86_RAX, 0);
	assert_int_equal(prog - buf, 2);
	prog = buf;
	emit_mov_imm(&prog, X86_RAX, 5);
	assert_int_equal(prog - buf, 5);
	prog = buf;
	emit_mov_imm(&prog, X86_RAX, -5ULL);
	assert_int_equal(prog - buf, 7);
	prog = buf;
	emit_mov_imm(&prog, X86_RAX, 1ULL << 40);
	assert_int_equal(prog - buf, 10);
}

static void test_load(void **state)
{
	CHECK(emit_load(&prog, 8, false, X86_RAX, X86_RDI, 0),
	      "mov rax, qword ptr [rdi]");
	CHECK(emit_load(&prog, 8, false, X86_R11, X86_RDI, 0),
	      "mov r11, qword ptr [rdi]");
	CHECK(emit_load(&prog, 4, true, X86_RAX, X86_R11, 0x70),
	      "movsxd rax, dword ptr [r11 + 0x70]");
	CHECK(emit_load(&prog, 4, false, X86_RSI, X86_RBP, 0x68),
	      "mov esi, dword ptr [rbp + 0x68]");
	CHECK(emit_load(&prog, 2, true, X86_R8, X86_RSP, 8),
	      "movsx r8, word ptr [rsp + 8]");
	CHECK(emit_load(&prog, 2, false, X86_R9, X86_R12, 0),
	      "movzx r9d, word ptr [r12]");
	CHECK(emit_load(&prog, 1, true, X86_R10, X86_R13, 0),
	      "movsx r10, byte ptr [r13]");
	CHECK(emit_load(&prog, 1, false, X86_RAX, X86_RBP, 0),
	      "movzx eax, byte ptr [rbp]");
	CHECK(emit_load(&prog, 8, false, X86_RDX, X86_RSP, 0x1000),
	      "mov rdx, qword ptr [rsp + 0x1000]");
	CHECK(emit_load(&prog, 8, false, X86_RCX, X86_RBX, -8),
	      "mov rcx, qword ptr [rbx - 8]");
}

/* absolute disp32 (kernel and module data addresses), no base, no rip */
static void test_load_abs(void **state)
{
	CHECK(emit_load_abs(&prog, 4, true, X86_RAX, (s32)0xc0a01e48),
	      "movsxd rax, dword ptr [0xffffffffc0a01e48]");
	CHECK(emit_load_abs(&prog, 4, false, X86_R8, 0x10000),
	      "mov r8d, dword ptr [0x10000]");
	CHECK(emit_load_abs(&prog, 8, false, X86_RSI, 0x1000),
	      "mov rsi, qword ptr [0x1000]");
	CHECK(emit_load_abs(&prog, 2, true, X86_R10, -4),
	      "movsx r10, word ptr [0xfffffffffffffffc]");
	CHECK(emit_load_abs(&prog, 1, true, X86_R9, (s32)0x80000000),
	      "movsx r9, byte ptr [0xffffffff80000000]");
	/* without REX.W capstone prints the disp32 unextended; the CPU
	 * still extends it (64-bit address size) */
	CHECK(emit_load_abs(&prog, 1, false, X86_R9, 0x7ffffff0),
	      "movzx r9d, byte ptr [0x7ffffff0]");
}

static void test_store(void **state)
{
	CHECK(emit_store(&prog, 8, X86_RSP, 16, X86_RSI),
	      "mov qword ptr [rsp + 0x10], rsi");
	CHECK(emit_store(&prog, 4, X86_RBX, 0x1c, X86_R8),
	      "mov dword ptr [rbx + 0x1c], r8d");
	CHECK(emit_store(&prog, 2, X86_R13, 0, X86_RAX),
	      "mov word ptr [r13], ax");
	CHECK(emit_store(&prog, 1, X86_RDI, 1, X86_RSI),
	      "mov byte ptr [rdi + 1], sil");
	CHECK(emit_store_imm(&prog, 4, X86_RDI, 0x1c, 3),
	      "mov dword ptr [rdi + 0x1c], 3");
	CHECK(emit_store_imm(&prog, 8, X86_RBX, 0x20, 0x25),
	      "mov qword ptr [rbx + 0x20], 0x25");
}

static void test_alu(void **state)
{
	CHECK(emit_alu_rr(&prog, X86_ADD, X86_RAX, X86_RSI), "add rax, rsi");
	CHECK(emit_alu_rr(&prog, X86_SUB, X86_R8, X86_R9), "sub r8, r9");
	CHECK(emit_alu_rr(&prog, X86_AND, X86_RSI, X86_R10), "and rsi, r10");
	CHECK(emit_alu_rr(&prog, X86_OR, X86_R10, X86_RAX), "or r10, rax");
	CHECK(emit_alu_rr(&prog, X86_XOR, X86_RDX, X86_RCX), "xor rdx, rcx");
	CHECK(emit_alu_rr(&prog, X86_CMP, X86_RAX, X86_RCX), "cmp rax, rcx");
	CHECK(emit_alu_ri(&prog, X86_ADD, X86_RSI, 1), "add rsi, 1");
	CHECK(emit_alu_ri(&prog, X86_SUB, X86_RSP, 0x18), "sub rsp, 0x18");
	CHECK(emit_alu_ri(&prog, X86_CMP, X86_RAX, 0x1000), "cmp rax, 0x1000");
	CHECK(emit_alu_ri(&prog, X86_AND, X86_R9, 0x7fffffff),
	      "and r9, 0x7fffffff");
	CHECK(emit_alu_ri(&prog, X86_CMP, X86_RCX, -1),
	      "cmp rcx, -1");
	CHECK(emit_alu_ri32(&prog, X86_CMP, X86_RSI, 5), "cmp esi, 5");
	CHECK(emit_alu_ri32(&prog, X86_CMP, X86_R9, -0x1000),
	      "cmp r9d, 0xfffff000");
	CHECK(emit_alu_ri32(&prog, X86_CMP, X86_RAX, 0x5eed),
	      "cmp eax, 0x5eed");
	CHECK(emit_alu_ri32(&prog, X86_CMP, X86_RDI, 0x12345678),
	      "cmp edi, 0x12345678");
	CHECK(emit_alu_rm(&prog, X86_ADD, X86_RAX, X86_R11, 0x70),
	      "add rax, qword ptr [r11 + 0x70]");
	CHECK(emit_alu_rm(&prog, X86_CMP, X86_R8, X86_RBP, 0x50),
	      "cmp r8, qword ptr [rbp + 0x50]");
	CHECK(emit_alu_mi32(&prog, X86_CMP, X86_RDI, 0x18, 5),
	      "cmp dword ptr [rdi + 0x18], 5");
	CHECK(emit_alu_mi32(&prog, X86_SUB, X86_RBX, 0x18, 300),
	      "sub dword ptr [rbx + 0x18], 0x12c");
}

static void test_mul_div(void **state)
{
	CHECK(emit_imul_rr(&prog, X86_RAX, X86_R10), "imul rax, r10");
	CHECK(emit_imul_rri(&prog, X86_RSI, X86_RSI, 3), "imul rsi, rsi, 3");
	CHECK(emit_imul_rri(&prog, X86_R8, X86_R8, 100000),
	      "imul r8, r8, 0x186a0");
	CHECK(emit_imul_rm(&prog, X86_R9, X86_R11, 0x68),
	      "imul r9, qword ptr [r11 + 0x68]");
	CHECK(emit_div(&prog, true, X86_RCX), "idiv rcx");
	CHECK(emit_div(&prog, false, X86_RCX), "div rcx");
	CHECK(emit_cqo(&prog), "cqo");
	CHECK(emit_neg(&prog, X86_R8), "neg r8");
	CHECK(emit_not(&prog, X86_RSI), "not rsi");
}

static void test_shift(void **state)
{
	CHECK(emit_shift_cl(&prog, X86_SHL, X86_RAX), "shl rax, cl");
	CHECK(emit_shift_cl(&prog, X86_SAR, X86_R9), "sar r9, cl");
	CHECK(emit_shift_cl(&prog, X86_SHR, X86_RSI), "shr rsi, cl");
	CHECK(emit_shift_imm(&prog, X86_SHL, X86_RAX, 1), "shl rax, 1");
	CHECK(emit_shift_imm(&prog, X86_SAR, X86_R10, 63), "sar r10, 0x3f");
	CHECK(emit_shift_imm(&prog, X86_SHR, X86_RDX, 7), "shr rdx, 7");
	CHECK(emit_shift_imm32(&prog, X86_SHR, X86_RAX, 31), "shr eax, 0x1f");
	CHECK(emit_shift_imm32(&prog, X86_SHR, X86_R11, 31), "shr r11d, 0x1f");
}

static void test_flags(void **state)
{
	CHECK(emit_test_rr(&prog, X86_RAX, X86_RAX), "test rax, rax");
	CHECK(emit_test_rr(&prog, X86_R11, X86_R11), "test r11, r11");
	CHECK(emit_test_rr32(&prog, X86_RAX, X86_RAX), "test eax, eax");
	CHECK(emit_test_rr32(&prog, X86_R10, X86_R10), "test r10d, r10d");
	CHECK(emit_test_rr32(&prog, X86_RSI, X86_RSI), "test esi, esi");
	CHECK(emit_test_ri(&prog, X86_RAX, 1), "test rax, 1");
	CHECK(emit_test_ri(&prog, X86_RSI, 0xff), "test rsi, 0xff");
	CHECK(emit_test_ri(&prog, X86_R10, -16), "test r10, -0x10");
	CHECK(emit_cmov(&prog, 0x4, X86_RAX, X86_RDX), "cmove rax, rdx");
	CHECK(emit_xchg(&prog, X86_RAX, X86_R8), "xchg rax, r8");
}

static void test_setcc(void **state)
{
	/* setcc + movzx: two insns, checked as text */
	u8 *prog = buf;

	emit_setcc_zx(&prog, 0xf, X86_RAX);
	assert_int_equal(user_disasm(buf, prog - buf, false, text,
				     sizeof(text)), 2);
	assert_string_equal(text, "setg al\nmovzx eax, al\n");
	prog = buf;
	emit_setcc_zx(&prog, 0x2, X86_RSI);
	assert_int_equal(user_disasm(buf, prog - buf, false, text,
				     sizeof(text)), 2);
	assert_string_equal(text, "setb sil\nmovzx esi, sil\n");
	prog = buf;
	emit_setcc_zx(&prog, 0x5, X86_R10);
	assert_int_equal(user_disasm(buf, prog - buf, false, text,
				     sizeof(text)), 2);
	assert_string_equal(text, "setne r10b\nmovzx r10d, r10b\n");
}

static void test_extend(void **state)
{
	CHECK(emit_movsx_rr(&prog, 32, X86_RAX, X86_RAX), "movsxd rax, eax");
	CHECK(emit_movsx_rr(&prog, 16, X86_R8, X86_R8), "movsx r8, r8w");
	CHECK(emit_movsx_rr(&prog, 8, X86_RSI, X86_RSI), "movsx rsi, sil");
	CHECK(emit_movzx_rr(&prog, 8, X86_RSI, X86_RSI), "movzx esi, sil");
	CHECK(emit_movzx_rr(&prog, 16, X86_R9, X86_R9), "movzx r9d, r9w");
	CHECK(emit_movzx_rr(&prog, 32, X86_RAX, X86_RAX), "mov eax, eax");
}

static void test_stack_and_calls(void **state)
{
	CHECK(emit_push(&prog, X86_RBX), "push rbx");
	CHECK(emit_pop(&prog, X86_RBP), "pop rbp");
	CHECK(emit_push(&prog, X86_R12), "push r12");
	CHECK(emit_lea(&prog, X86_RDX, X86_RSP, 0x28),
	      "lea rdx, [rsp + 0x28]");
	CHECK(emit_call_reg(&prog, X86_RAX), "call rax");
	CHECK(emit_jmp_reg(&prog, X86_R11), "jmp r11");
}

static void test_branches(void **state)
{
	/* capstone prints targets as absolute addresses (buffer at 0) */
	CHECK(emit_jcc8(&prog, 0x4, 0x10), "je 0x12");
	CHECK(emit_jcc32(&prog, 0xc, 0x100), "jl 0x106");
	CHECK(emit_jmp8(&prog, -2), "jmp 0");
	CHECK(emit_jmp32(&prog, 0x1000), "jmp 0x1005");
	CHECK(emit_call32(&prog, 0x20), "call 0x25");
}

static void test_ret_has_int3(void **state)
{
	u8 *prog = buf;

	emit_ret(&prog);
	assert_int_equal(user_disasm(buf, prog - buf, false, text,
				     sizeof(text)), 2);
	assert_string_equal(text, "ret\nint3\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mov),
		cmocka_unit_test(test_mov_rr_same_is_empty),
		cmocka_unit_test(test_mov_imm),
		cmocka_unit_test(test_mov_imm_sizes),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_abs),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_alu),
		cmocka_unit_test(test_mul_div),
		cmocka_unit_test(test_shift),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_setcc),
		cmocka_unit_test(test_extend),
		cmocka_unit_test(test_stack_and_calls),
		cmocka_unit_test(test_branches),
		cmocka_unit_test(test_ret_has_int3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
