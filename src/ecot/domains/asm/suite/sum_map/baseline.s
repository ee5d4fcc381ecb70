	.file	"func.c"
	.text
	.p2align 4
	.globl	sum_map
	.type	sum_map, @function
sum_map:
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbp
	pushq	%rbx
	testq	%rsi, %rsi
	jle	.L4
	movq	%rdi, %r13
	movq	%rsi, %r12
	movq	%rdx, %r14
	xorl	%ebx, %ebx
	xorl	%ebp, %ebp
	.p2align 4,,10
	.p2align 3
.L3:
	movq	0(%r13,%rbx,8), %rdi
	addq	$1, %rbx
	call	*%r14
	addq	%rax, %rbp
	cmpq	%rbx, %r12
	jne	.L3
	popq	%rbx
	movq	%rbp, %rax
	popq	%rbp
	popq	%r12
	popq	%r13
	popq	%r14
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%ebp, %ebp
	popq	%rbx
	movq	%rbp, %rax
	popq	%rbp
	popq	%r12
	popq	%r13
	popq	%r14
	ret
	.size	sum_map, .-sum_map
	.section	.note.GNU-stack,"",@progbits
