# A compare against memory and one loop branch per element, indexing from the end.
	.text
	.globl	find_first
	.type	find_first, @function
find_first:
	testq	%rsi, %rsi
	jle	.Lnone
	leaq	(%rdi,%rsi,8), %r8
	movq	%rsi, %rcx
	negq	%rcx
.Lloop:
	cmpq	%rdx, (%r8,%rcx,8)
	je	.Lfound
	addq	$1, %rcx
	jne	.Lloop
.Lnone:
	movq	$-1, %rax
	ret
.Lfound:
	leaq	(%rsi,%rcx), %rax
	ret
	.size	find_first, .-find_first
	.section	.note.GNU-stack,"",@progbits
