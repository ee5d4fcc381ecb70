# Eight adds from memory per iteration, counting a negative index up to zero.
	.text
	.globl	sum_array
	.type	sum_array, @function
sum_array:
	xorl	%eax, %eax
	testq	%rsi, %rsi
	jle	.Ldone
	movq	%rsi, %rdx
	andq	$-8, %rdx
	leaq	(%rdi,%rdx,8), %r8
	negq	%rdx
	je	.Ltail
.Lloop:
	addq	(%r8,%rdx,8), %rax
	addq	8(%r8,%rdx,8), %rax
	addq	16(%r8,%rdx,8), %rax
	addq	24(%r8,%rdx,8), %rax
	addq	32(%r8,%rdx,8), %rax
	addq	40(%r8,%rdx,8), %rax
	addq	48(%r8,%rdx,8), %rax
	addq	56(%r8,%rdx,8), %rax
	addq	$8, %rdx
	jne	.Lloop
.Ltail:
	andl	$7, %esi
	je	.Ldone
.Lrest:
	addq	(%r8), %rax
	addq	$8, %r8
	subq	$1, %rsi
	jne	.Lrest
.Ldone:
	ret
	.size	sum_array, .-sum_array
	.section	.note.GNU-stack,"",@progbits
