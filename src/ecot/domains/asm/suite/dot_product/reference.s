# Sign-extending loads and a 64-bit multiply, indexing both arrays from their ends.
	.text
	.globl	dot_product
	.type	dot_product, @function
dot_product:
	xorl	%eax, %eax
	testq	%rdx, %rdx
	jle	.Ldone
	leaq	(%rdi,%rdx,4), %rdi
	leaq	(%rsi,%rdx,4), %rsi
	negq	%rdx
.Lloop:
	movslq	(%rdi,%rdx,4), %rcx
	movslq	(%rsi,%rdx,4), %r8
	imulq	%r8, %rcx
	addq	%rcx, %rax
	addq	$1, %rdx
	jne	.Lloop
.Ldone:
	ret
	.size	dot_product, .-dot_product
	.section	.note.GNU-stack,"",@progbits
