	.file	"func.c"
	.text
	.p2align 4
	.globl	parse_long
	.type	parse_long, @function
parse_long:
	movzbl	(%rdi), %edx
	movl	$1, %esi
	cmpb	$45, %dl
	jne	.L2
	movzbl	1(%rdi), %edx
	movq	$-1, %rsi
	addq	$1, %rdi
.L2:
	leal	-48(%rdx), %ecx
	xorl	%eax, %eax
	cmpb	$9, %cl
	ja	.L10
	.p2align 4,,10
	.p2align 3
.L3:
	subl	$48, %edx
	leaq	(%rax,%rax,4), %rax
	addq	$1, %rdi
	movsbq	%dl, %rdx
	leaq	(%rdx,%rax,2), %rax
	movzbl	(%rdi), %edx
	leal	-48(%rdx), %ecx
	cmpb	$9, %cl
	jbe	.L3
	imulq	%rsi, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L10:
	ret
	.size	parse_long, .-parse_long
	.section	.note.GNU-stack,"",@progbits
