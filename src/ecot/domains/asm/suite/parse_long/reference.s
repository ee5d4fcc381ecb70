# Multiply by 10 with two lea instructions and negate with a cmov at the end.
	.text
	.globl	parse_long
	.type	parse_long, @function
parse_long:
	xorl	%eax, %eax
	xorl	%r8d, %r8d
	cmpb	$45, (%rdi)
	jne	.Lloop
	movl	$1, %r8d
	addq	$1, %rdi
.Lloop:
	movzbl	(%rdi), %edx
	subl	$48, %edx
	cmpl	$9, %edx
	ja	.Lend
	leaq	(%rax,%rax,4), %rax
	leaq	(%rdx,%rax,2), %rax
	addq	$1, %rdi
	jmp	.Lloop
.Lend:
	movq	%rax, %rdx
	negq	%rdx
	testl	%r8d, %r8d
	cmovne	%rdx, %rax
	ret
	.size	parse_long, .-parse_long
	.section	.note.GNU-stack,"",@progbits
