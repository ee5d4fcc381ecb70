	.file	"func.c"
	.text
	.p2align 4
	.globl	find_first
	.type	find_first, @function
find_first:
	testq	%rsi, %rsi
	jle	.L4
	xorl	%eax, %eax
	jmp	.L3
	.p2align 4,,10
	.p2align 3
.L7:
	addq	$1, %rax
	cmpq	%rax, %rsi
	je	.L4
.L3:
	cmpq	%rdx, (%rdi,%rax,8)
	jne	.L7
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	movq	$-1, %rax
	ret
	.size	find_first, .-find_first
	.section	.note.GNU-stack,"",@progbits
