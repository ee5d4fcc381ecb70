# Callee-saved registers hold the index, end, callback and count across calls (the extra 8 bytes keep the stack 16-byte aligned at each call); cmp/sbb adds the predicate's truth without a branch.
	.text
	.globl	count_if
	.type	count_if, @function
count_if:
	pushq	%r13
	pushq	%r12
	pushq	%rbp
	pushq	%rbx
	subq	$8, %rsp
	xorl	%ebp, %ebp
	testq	%rsi, %rsi
	jle	.Ldone
	leaq	(%rdi,%rsi,8), %r12
	movq	%rsi, %rbx
	negq	%rbx
	movq	%rdx, %r13
.Lloop:
	movq	(%r12,%rbx,8), %rdi
	call	*%r13
	cmpl	$1, %eax
	sbbq	$-1, %rbp
	addq	$1, %rbx
	jne	.Lloop
.Ldone:
	movq	%rbp, %rax
	addq	$8, %rsp
	popq	%rbx
	popq	%rbp
	popq	%r12
	popq	%r13
	ret
	.size	count_if, .-count_if
	.section	.note.GNU-stack,"",@progbits
