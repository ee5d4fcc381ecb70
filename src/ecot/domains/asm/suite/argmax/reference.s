# Keep the best value and position with cmov (no data-dependent branch), indexing from the end.
	.text
	.globl	argmax
	.type	argmax, @function
argmax:
	movq	(%rdi), %rcx
	leaq	(%rdi,%rsi,8), %r9
	movq	%rsi, %rax
	negq	%rax
	leaq	1(%rax), %rdx
	cmpq	$1, %rsi
	jle	.Ldone
.Lloop:
	movq	(%r9,%rdx,8), %r8
	cmpq	%rcx, %r8
	cmovg	%r8, %rcx
	cmovg	%rdx, %rax
	addq	$1, %rdx
	jne	.Lloop
.Ldone:
	addq	%rsi, %rax
	ret
	.size	argmax, .-argmax
	.section	.note.GNU-stack,"",@progbits
