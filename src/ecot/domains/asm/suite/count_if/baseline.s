	.file	"func.c"
	.text
	.p2align 4
	.globl	count_if
	.type	count_if, @function
count_if:
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbp
	pushq	%rbx
	testq	%rsi, %rsi
	jle	.L5
	movq	%rdi, %r13
	movq	%rsi, %r12
	movq	%rdx, %r14
	xorl	%ebx, %ebx
	xorl	%ebp, %ebp
	.p2align 4,,10
	.p2align 3
.L4:
	movq	0(%r13,%rbx,8), %rdi
	call	*%r14
	cmpl	$1, %eax
	sbbq	$-1, %rbp
	addq	$1, %rbx
	cmpq	%rbx, %r12
	jne	.L4
	popq	%rbx
	movq	%rbp, %rax
	popq	%rbp
	popq	%r12
	popq	%r13
	popq	%r14
	ret
	.p2align 4,,10
	.p2align 3
.L5:
	xorl	%ebp, %ebp
	popq	%rbx
	movq	%rbp, %rax
	popq	%rbp
	popq	%r12
	popq	%r13
	popq	%r14
	ret
	.size	count_if, .-count_if
	.section	.note.GNU-stack,"",@progbits
