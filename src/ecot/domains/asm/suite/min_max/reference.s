# Both running extremes in registers, updated with cmov.
	.text
	.globl	min_max
	.type	min_max, @function
min_max:
	movq	(%rdi), %rax
	movq	%rax, %r8
	cmpq	$1, %rsi
	jle	.Lstore
	leaq	(%rdi,%rsi,8), %r10
	addq	$8, %rdi
.Lloop:
	movq	(%rdi), %r9
	cmpq	%rax, %r9
	cmovl	%r9, %rax
	cmpq	%r8, %r9
	cmovg	%r9, %r8
	addq	$8, %rdi
	cmpq	%r10, %rdi
	jne	.Lloop
.Lstore:
	movq	%rax, (%rdx)
	movq	%r8, (%rcx)
	ret
	.size	min_max, .-min_max
	.section	.note.GNU-stack,"",@progbits
